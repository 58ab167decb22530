// (filled by the sso work)
import type { Command } from "./args";

export const ssoCommands: Record<string, Command> = {};
