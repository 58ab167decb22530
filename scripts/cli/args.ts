import { parseArgs, type ParseArgsConfig } from "node:util";

import type { Output } from "./output";

export class UsageError extends Error {}

/** A command checks its arguments (throwing usage errors) and returns the work to run once connected. */
export type Command = (argv: string[]) => () => Promise<Output>;

export const USAGE = `usage: npm run cli -- <command> [options]

  workspace create --name NAME [--credits USD] [--json]
  workspace show WORKSPACE_ID [--json]
  workspace list [--json]
  workspace limits WORKSPACE_ID [--rpm N|none] [--tpm N|none] [--concurrency N|none] [--json]
  credits add WORKSPACE_ID USD [--note TEXT] [--json]
  key create WORKSPACE_ID [--name NAME] [--expires ISO_DATE] [--plan PLAN_ID] [--permissions GROUP,...] [--models MODEL,...]
             [--tools PATTERN,...] [--json]
  key list WORKSPACE_ID [--json]
  key revoke KEY_ID [--json]
  key set-plan WORKSPACE_ID KEY_ID PLAN_ID|none [--json]
  plan create WORKSPACE_ID --name NAME [--models A,B] [--tools PATTERN,...] [--rpm N] [--tpm N] [--concurrency N]
              [--daily-cap USD] [--monthly-cap USD] [--max-ttl SECONDS] [--region CC] [--json]
  plan list WORKSPACE_ID [--json]
  plan update WORKSPACE_ID PLAN_ID [the flags of plan create] [--json]
  plan delete WORKSPACE_ID PLAN_ID [--json]
  session list WORKSPACE_ID [--plan PLAN_ID] [--subject SUBJECT] [--all] [--limit N] [--json]
  session revoke WORKSPACE_ID SESSION_ID [--json]
  session revoke-subject WORKSPACE_ID SUBJECT [--json]
  signing-key rotate [--json]
  signing-key list [--json]
  issuer add WORKSPACE_ID --issuer URL --jwks-url URL --audience AUD [--subject-claim CLAIM]
             [--plan-claim CLAIM] [--default-plan PLAN_ID] [--json]
  issuer list WORKSPACE_ID [--json]
  issuer remove WORKSPACE_ID ISSUER_ID [--json]
  node add --name NAME --url URL --city CITY --country CC [--wire openai|anthropic|gemini]
           [--key KEY] [--weight N] [--model GATEWAY_MODEL=UPSTREAM_MODEL ...] [--no-discover] [--json]
  node list [--json]
  node remove NODE_ID [--json]
  webhook add WORKSPACE_ID --url URL --events E1,E2 [--balance-below USD] [--spend-share 0..1] [--json]
  webhook list WORKSPACE_ID [--json]
  webhook remove WORKSPACE_ID WEBHOOK_ID [--json]
  logs WORKSPACE_ID [--status 2xx|4xx|5xx] [--code CODE] [--key KEY_ID] [--model M] [--tag k=v]
       [--limit N] [--json]   (the request log, newest first)
  capture WORKSPACE_ID [--enable|--disable] [--max-bytes N] [--redact PATTERN ...] [--no-redact]
          [--key KEY_ID --enable|--disable|--inherit] [--json]   (keeping request and answer bodies)
  cache clear WORKSPACE_ID [--model M | --key KEY_ID] [--json]   (remove response cache entries)
  cache settings WORKSPACE_ID [--default-on|--default-off] [--ttl S] [--max-ttl S]
                 [--price-fraction 0..1] [--sampling|--no-sampling] [--json]
  route set WORKSPACE_ID|--global --file route.json [--json]   (create or replace a route)
  route list WORKSPACE_ID|--global [--json]   (a workspace's routes and the gateway-wide ones)
  route show WORKSPACE_ID|--global NAME [--json]
  route remove WORKSPACE_ID|--global NAME [--json]
  guardrail add WORKSPACE_ID|--global --name N --type pii|deny|injection|moderation|schema|http
                --stage input|output|both --action block|redact|flag [--on-error allow|block]
                [--timeout-ms N] [--pattern RE2 ...] [--word W ...] [--entity KIND ...] [--model M]
                [--threshold CATEGORY=SCORE ...] [--url URL] [--adapter gateway|presidio|openai-moderation]
                [--anonymizer-url URL] [--schema FILE] [--json]   (add, or replace the definition)
  guardrail attach|detach WORKSPACE_ID|--global NAME [--plan PLAN | --key KEY_ID] [--json]
  guardrail list WORKSPACE_ID|--global [--json]
  guardrail show WORKSPACE_ID|--global NAME [--json]
  guardrail remove WORKSPACE_ID|--global NAME [--json]
  guardrail test WORKSPACE_ID|--global NAME --text TEXT [--json]   (the verdict, no model called)
  mcp add WORKSPACE_ID|--global --name N --url URL [--transport streamable_http|sse]
          [--header 'Name: value' ...] [--oauth-token-url URL --client-id ID --client-secret S
          [--scope SCOPE]] [--price-per-call USD] [--description TEXT] [--json]   (add, or replace)
  mcp list WORKSPACE_ID|--global [--refresh] [--json]   (servers, their tools, health)
  mcp show WORKSPACE_ID|--global SERVER [--refresh] [--json]
  mcp remove WORKSPACE_ID|--global SERVER [--json]
  mcp price WORKSPACE_ID|--global SERVER TOOL --per-call USD|--clear [--json]
  mcp adhoc WORKSPACE_ID on|off [--json]   (whether callers may use unregistered servers)
  role create WORKSPACE_ID --name NAME --permissions P1,P2 [--description TEXT] [--json]   (a custom role)
  role list WORKSPACE_ID [--json]
  role update WORKSPACE_ID ROLE [--name NAME] [--permissions P1,P2] [--description TEXT] [--json]
  role delete WORKSPACE_ID ROLE [--json]
  member role WORKSPACE_ID EMAIL ROLE [--json]   (a built-in role or a custom role's name)
  sso set WORKSPACE_ID (--oidc-issuer URL --client-id ID --client-secret S | --saml-metadata FILE_OR_URL)
          --domain D [--domain D ...] [--default-role ROLE] [--require|--no-require] [--idp-initiated] [--json]
  sso show WORKSPACE_ID [--json]   (the URLs to register at the identity provider, the domains' TXT records)
  sso remove WORKSPACE_ID [--json]
  domain verify WORKSPACE_ID DOMAIN [--operator] [--json]   (DNS TXT; --operator marks it verified)
  scim token WORKSPACE_ID [--json]   (the base URL and a new token; older tokens are revoked)
  scim group-role WORKSPACE_ID GROUP ROLE|CUSTOM_ROLE|none [--json]   (GROUP: its id or name; its members get the role)
  audit WORKSPACE_ID|gateway [--action PREFIX] [--limit N] [--json]   (changes, newest first)
  model list [--json]
  model price MODEL_ID --input USD --output USD [--cache-read USD] [--cache-write USD]
              [--reasoning USD] [--training-per-1m USD] [--ft-input-per-1m USD]
              [--ft-output-per-1m USD] [--json]   (per 1M tokens; makes an unpriced model servable;
              the fine-tuning prices alone may be set on a priced model)
  x402 revenue [--days N] [--json]
  x402 payments [--limit N] [--json]
  x402 demo-wallet [--json]
  user list [--json]
  user promote EMAIL [--json]
  user demote EMAIL [--json]

Amounts are USD decimal strings (e.g. 25 or 0.5). The database is the one the gateway uses:
DATABASE_URL when set, otherwise the embedded one under DATA_DIR.

Plans: --rpm, --tpm and --concurrency are whole numbers above zero, per subject (per key for
keys on the plan); --daily-cap and --monthly-cap are USD per subject per UTC day and month;
"none" clears a limit or a cap (on plan update; a new plan has none unless given). --models is a
comma-separated list of model ids ("" on plan update: every model, the default); --tools likewise
of MCP tool patterns (see Keys). --max-ttl is the longest session token lifetime in seconds (60
to 2592000, default 3600). --region is where the plan's callers are, a country code (routes that
prefer the caller's region use it; "none" clears it). plan update changes only the flags given. session list shows sessions alive now; --all also expired and revoked ones
(newest first, --limit of them, default 100).

Keys: without --permissions, --models or --tools a key may call everything its plan allows.
--permissions is a comma-separated list of operation groups (models, text, embeddings, audio,
images, videos, sessions, files, batches, mcp, fine_tuning); --models of model ids; --tools of
patterns of the MCP tools the key may use, named <server>__<tool> with * for any run of
characters (e.g. 'github__*,search__web,*__read_file'; * alone is every tool).

workspace limits sets the defaults every key and subject of the workspace gets where its plan
sets none; a flag not given leaves that default as it is, "none" removes it, and with no flag
the command prints the current defaults.

x402 revenue: what x402 payers paid per UTC day and per model over the last --days (1 to 366,
default 30), in USD. x402 payments: the latest --limit payments (default 50, at most 1000) with
their status and amounts in atomic units of the asset. x402 demo-wallet: the local dev chain's
funded payer (written by \`X402_NETWORK=local npm start\`); needs no database.

audit lists who changed what in a workspace (keys, members, invitations, plans, issuers, credits,
settings), newest first, --limit of them (default 50, at most 500); "gateway" lists the changes
that belong to no workspace (nodes, prices, install settings). --action keeps the actions that
start with PREFIX (e.g. key.). Every change made with this tool is recorded as "cli" with the OS
user that ran it.

capture turns the keeping of request and answer bodies in the request log on or off (off by
default), sets the bytes kept of each body (1024 to 1048576, default 32768) and the workspace's
redaction patterns (RE2 syntax; --redact replaces the list, --no-redact empties it); with no flag
it prints the settings. --key sets one key's own choice (--inherit: the workspace's). See
docs/REQUEST-LOG.md.

cache: the response cache (docs/CACHE.md). cache settings with no flag prints the settings; a
call uses the cache when it sends x-gateway-cache: use, or by default once --default-on.
--price-fraction is what a hit costs, as a fraction of the original call (default 0).

webhook add: alerts POSTed to URL, signed with the secret it prints once (docs/ALERTS.md). Events:
balance.low (needs --balance-below), spend.threshold (needs --spend-share, e.g. 0.8),
budget.exceeded, node.down, node.up, video.failed, guardrail.blocked. The URL must be public https (or allowed by
OUTBOUND_ALLOW).

route: virtual models (docs/ROUTING.md). A route is a JSON file: {"name", "strategy" (weighted,
fallback, least-latency, lowest-cost, least-busy), "targets": [{"model", "node"?, "weight"?}],
"retry"?: {"attempts", "backoff_ms", "on": [429, 5xx, timeout, context_length]}, "conditions"?:
[{"when": CEL, "use": route or model}]}. --global sets the gateway-wide routes every workspace
sees (a workspace's own route of the same name takes its place).

guardrail: checks on calls' input and output (docs/GUARDRAILS.md). All attached to the workspace,
the caller's plan and its key run, the gateway-wide ones (attached with --global) first.

mcp: tool servers offered at /mcp as <server>__<tool> (docs/MCP.md). A server is listed when added
(one that does not answer is added as down); --refresh lists each again. --global: the operator's
servers, which every workspace has and none can change. A workspace's server may not take the name
of a gateway-wide one, nor the reverse. --per-call is USD per call of one tool (--clear: the
server's --price-per-call again).

user promote makes a signed-up user a gateway operator (nodes, credits, install settings); user
demote takes it back (users named in OPERATOR_EMAILS stay operators).`;

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

/**
 * Parses `WORKSPACE_ID|--global <positionals…>` (routes, guardrails: a workspace's own, or the
 * operator's gateway-wide ones): the workspace (null for --global) and the other positionals.
 */
export function parseScoped<O extends Options>(argv: string[], options: O, rest: string[]) {
  const global = argv.includes("--global");
  const parsed = parse(argv, { ...options, global: { type: "boolean" } }, global ? rest : ["WORKSPACE_ID", ...rest]);
  const workspaceId = global ? null : parsed.args.shift()!;
  return { ...parsed, workspaceId };
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new UsageError(`--${flag} is required`);
  return value;
}
