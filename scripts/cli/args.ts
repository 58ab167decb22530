import { parseArgs, type ParseArgsConfig } from "node:util";

import type { Output } from "./output";

export class UsageError extends Error {}

/** A command checks its arguments (throwing usage errors) and returns the work to run once connected. */
export type Command = (argv: string[]) => () => Promise<Output>;

export const USAGE = `usage: npm run cli -- <command> [options]

  workspace create --name NAME [--credits USD] [--json]
  workspace show WORKSPACE_ID [--json]
  workspace list [--json]
  credits add WORKSPACE_ID USD [--note TEXT] [--json]
  key create WORKSPACE_ID [--name NAME] [--expires ISO_DATE] [--json]
  key list WORKSPACE_ID [--json]
  key revoke KEY_ID [--json]
  node add --name NAME --url URL --city CITY --country CC [--api-key KEY] [--weight N]
           [--model GATEWAY_MODEL=UPSTREAM_MODEL ...] [--no-discover] [--json]
  node list [--json]
  node remove NODE_ID [--json]
  model list [--json]

Amounts are USD decimal strings (e.g. 25 or 0.5). The database is the one the gateway uses:
DATABASE_URL when set, otherwise the embedded one under DATA_DIR.`;

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parses a command's arguments strictly: unknown flags and wrong positional counts are usage errors. */
export function parse<O extends Options>(argv: string[], options: O, positionals: string[]) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, json: { type: "boolean" } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.positionals.length !== positionals.length) {
    const expected = positionals.length ? positionals.join(" ") : "no positional arguments";
    throw new UsageError(`expected ${expected}, got ${parsed.positionals.length ? parsed.positionals.join(" ") : "none"}`);
  }
  return { values: parsed.values as { [K in keyof O]?: O[K]["type"] extends "boolean" ? boolean : O[K] extends { multiple: true } ? string[] : string } & { json?: boolean }, args: parsed.positionals };
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new UsageError(`--${flag} is required`);
  return value;
}
