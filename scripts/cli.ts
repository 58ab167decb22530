// npm run cli -- <command>: the operators' tool. See `npm run cli -- help`.
import "./cli/log-to-stderr";
import { UsageError, USAGE, type Command } from "./cli/args";
import { auditCommands } from "./cli/audit-commands";
import { cacheCommands } from "./cli/cache-commands";
import { connectForCli } from "./cli/connect";
import { guardrailCommands } from "./cli/guardrail-commands";
import { issuerCommands } from "./cli/issuer-commands";
import { keyCommands } from "./cli/key-commands";
import { logCommands } from "./cli/log-commands";
import { mcpCommands } from "./cli/mcp-commands";
import { nodeCommands } from "./cli/node-commands";
import { print } from "./cli/output";
import { planCommands } from "./cli/plan-commands";
import { roleCommands } from "./cli/role-commands";
import { routeCommands } from "./cli/route-commands";
import { scimCommands } from "./cli/scim-commands";
import { sessionCommands } from "./cli/session-commands";
import { signingKeyCommands } from "./cli/signing-key-commands";
import { ssoCommands } from "./cli/sso-commands";
import { userCommands } from "./cli/user-commands";
import { webhookCommands } from "./cli/webhook-commands";
import { workspaceCommands } from "./cli/workspace-commands";
import { x402Commands, x402OfflineCommands } from "./cli/x402-commands";

const COMMANDS: Record<string, Command> = {
  ...workspaceCommands,
  ...keyCommands,
  ...planCommands,
  ...sessionCommands,
  ...signingKeyCommands,
  ...issuerCommands,
  ...nodeCommands,
  ...x402Commands,
  ...userCommands,
  ...webhookCommands,
  ...auditCommands,
  ...logCommands,
  ...cacheCommands,
  ...routeCommands,
  ...guardrailCommands,
  ...mcpCommands,
  ...roleCommands,
  ...ssoCommands,
  ...scimCommands,
};

/** Commands that need no database (they read files): run without connecting. */
const OFFLINE = new Set([...x402OfflineCommands]);

function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const [group, action, ...rest] = process.argv.slice(2);
if (!group || group === "help" || group === "--help" || group === "-h") {
  if (group) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  fail(USAGE, 2);
}
// Most commands are two words (`key create`); a few are one, their first argument next (`logs WORKSPACE_ID`).
const twoWords = COMMANDS[`${group} ${action ?? ""}`];
const name = twoWords ? `${group} ${action ?? ""}` : group;
const command = twoWords ?? COMMANDS[group];
if (!twoWords && action !== undefined) rest.unshift(action);
if (!command) fail(`error: unknown command "${[group, action].filter(Boolean).join(" ")}"\n\n${USAGE}`, 2);

let close: (() => Promise<void>) | undefined;
let exitCode = 0;
try {
  // Arguments are checked before any database is touched.
  const run = command(rest);
  if (!OFFLINE.has(name)) close = await connectForCli();
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
