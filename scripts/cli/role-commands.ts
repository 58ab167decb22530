// (filled by the role work)
import type { Command } from "./args";

export const roleCommands: Record<string, Command> = {};
