// (filled by the scim work)
import type { Command } from "./args";

export const scimCommands: Record<string, Command> = {};
