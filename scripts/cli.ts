// npm run cli -- <command>: the operators' tool. See `npm run cli -- help`.
// A start loads only the module of the command being run (each pulls in the services it calls,
// and through them much of the server) and the database code only for a command that uses the
// database: `--help`, a usage error or one command costs a fraction of loading them all.
import "./cli/log-to-stderr";
import { UsageError, USAGE, type Command } from "./cli/args";
import { print } from "./cli/output";

type Commands = Record<string, Command>;
/** A command module's commands, and those of them that need no database (they read files). */
type CommandModule = { commands: Commands; offline?: ReadonlySet<string> };

const workspace = () => import("./cli/workspace-commands").then((m) => ({ commands: m.workspaceCommands }));
const key = () => import("./cli/key-commands").then((m) => ({ commands: m.keyCommands }));
const plan = () => import("./cli/plan-commands").then((m) => ({ commands: m.planCommands }));
const session = () => import("./cli/session-commands").then((m) => ({ commands: m.sessionCommands }));
const signingKey = () => import("./cli/signing-key-commands").then((m) => ({ commands: m.signingKeyCommands }));
const issuer = () => import("./cli/issuer-commands").then((m) => ({ commands: m.issuerCommands }));
const node = () => import("./cli/node-commands").then((m) => ({ commands: m.nodeCommands }));
const x402 = () => import("./cli/x402-commands").then((m) => ({ commands: m.x402Commands, offline: m.x402OfflineCommands }));
const user = () => import("./cli/user-commands").then((m) => ({ commands: m.userCommands }));
const webhook = () => import("./cli/webhook-commands").then((m) => ({ commands: m.webhookCommands }));
const audit = () => import("./cli/audit-commands").then((m) => ({ commands: m.auditCommands }));
const log = () => import("./cli/log-commands").then((m) => ({ commands: m.logCommands }));
const cache = () => import("./cli/cache-commands").then((m) => ({ commands: m.cacheCommands }));
const route = () => import("./cli/route-commands").then((m) => ({ commands: m.routeCommands }));
const guardrail = () => import("./cli/guardrail-commands").then((m) => ({ commands: m.guardrailCommands }));
const mcp = () => import("./cli/mcp-commands").then((m) => ({ commands: m.mcpCommands }));
const role = () => import("./cli/role-commands").then((m) => ({ commands: m.roleCommands }));
const sso = () => import("./cli/sso-commands").then((m) => ({ commands: m.ssoCommands }));
const scim = () => import("./cli/scim-commands").then((m) => ({ commands: m.scimCommands }));

/** Every module, in the order their commands were merged (a later one wins a name both define). */
const ALL: (() => Promise<CommandModule>)[] = [workspace, key, plan, session, signingKey, issuer, node, x402, user, webhook, audit, log, cache, route, guardrail, mcp, role, sso, scim];

/** Every module, loaded one after the other in the order of ALL (as a static import of each would). */
async function loadAll(): Promise<CommandModule[]> {
  const mods: CommandModule[] = [];
  for (const load of ALL) mods.push(await load());
  return mods;
}

/**
 * The module to load for a command's first word. A first word missing here, or a command its
 * module lacks, makes the CLI load every module before calling the command unknown: a command
 * added to a module without a line here still runs, only as slowly as before.
 */
const BY_FIRST_WORD: Record<string, () => Promise<CommandModule>> = {
  workspace, credits: workspace,
  key,
  plan,
  session,
  "signing-key": signingKey,
  issuer,
  node, model: node,
  x402,
  user,
  webhook,
  audit,
  logs: log, capture: log,
  cache,
  route,
  guardrail,
  mcp,
  role, member: role,
  sso, domain: sso,
  scim,
};

function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** The command named by the first one or two words, with its full name and whether it needs the database. */
function find(mods: CommandModule[], group: string, action: string | undefined): { name: string; command: Command; offline: boolean } | undefined {
  const commands: Commands = Object.assign({}, ...mods.map((m) => m.commands));
  // Most commands are two words (`key create`); a few are one, their first argument next (`logs WORKSPACE_ID`).
  const twoWords = commands[`${group} ${action ?? ""}`];
  const name = twoWords ? `${group} ${action ?? ""}` : group;
  const command = twoWords ?? commands[group];
  if (!command) return undefined;
  return { name, command, offline: mods.some((m) => m.offline?.has(name)) };
}

const [group, action, ...rest] = process.argv.slice(2);
if (!group || group === "help" || group === "--help" || group === "-h") {
  if (group) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  fail(USAGE, 2);
}
const first = BY_FIRST_WORD[group];
const found = (first && find([await first()], group, action)) || find(await loadAll(), group, action);
if (!found) fail(`error: unknown command "${[group, action].filter(Boolean).join(" ")}"\n\n${USAGE}`, 2);
const { name, command, offline } = found;
if (name === group && action !== undefined) rest.unshift(action);

let close: (() => Promise<void>) | undefined;
let exitCode = 0;
try {
  // Arguments are checked before any database is touched.
  const run = command(rest);
  if (!offline) close = await (await import("./cli/connect")).connectForCli();
  print(await run());
} catch (err) {
  // Invalid arguments (flags, or values the services' schemas reject) are usage errors.
  const issues = (err as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
  const usage = err instanceof UsageError || Array.isArray(issues);
  exitCode = usage ? 2 : 1;
  const detail = issues ? issues.map((i) => `${i.path.join(".") || "value"}: ${i.message}`).join("; ") : (err as Error).message;
  const message = usage ? `error: ${detail}\n\n${USAGE}` : `error: ${detail}`;
  process.stderr.write(`${message}\n`);
} finally {
  await close?.().catch(() => undefined);
}
process.exit(exitCode);
