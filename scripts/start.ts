// npm start: the gateway on its embedded defaults. Ctrl-C or SIGTERM stops everything it started.
import { dataDir } from "../server/infra/db/data-dir";
import { env } from "../server/infra/env";
import { issueSetupToken, SETUP_TOKEN_HOURS } from "../server/identity/users/setup-token";
import { startStack, type Stack } from "./lib/stack";

const log = (line: string) => process.stdout.write(`[start] ${line}\n`);

let stack: Stack | undefined;
let stopStack: (() => Promise<void>) | undefined;
let stopping: Promise<never> | undefined;

/** Stops everything once; a second signal while stopping waits for the same shutdown. */
function shutdown(reason: string, code: number): Promise<never> {
  stopping ??= (async () => {
    log(`${reason}: stopping...`);
    await stopStack?.().catch((err) => console.error(err));
    log("stopped");
    process.exit(code);
  })();
  return stopping;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void shutdown(signal, 0));

try {
  stack = await startStack({
    dataDir: dataDir(),
    databaseUrl: env.DATABASE_URL,
    port: env.PORT,
    host: env.HOST,
    distDir: env.NEXT_DIST_DIR,
    role: "npm start",
    log,
    onStoppable: (stop) => (stopStack = stop),
  });
} catch (err) {
  if (stopping) await stopping;
  console.error(`[start] ${(err as Error).message}`);
  process.exit(1);
}

log(`Gateway ready on http://localhost:${env.PORT}  (OpenAI base URL: http://localhost:${env.PORT}/v1)`);
log(`Database: ${stack.databaseDir ? `embedded PostgreSQL in ${stack.databaseDir}` : "DATABASE_URL"}`);
if (stack.demo) {
  log("A demo workspace was created. Its API key is shown only this once:");
  process.stdout.write(`\n    ${stack.demo.secret}\n\n`);
  log(`Try: curl -H "Authorization: Bearer <the key above>" http://localhost:${env.PORT}/v1/models`);
}
// No operator yet: a one-time link makes whoever opens it, signed in, the operator (and nobody
// becomes one by signing up first). OPERATOR_EMAILS or `npm run cli -- user promote` also do.
const setupToken = await issueSetupToken();
if (setupToken) {
  const origin = (env.PUBLIC_BASE_URL ?? env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, "");
  log(`This gateway has no operator yet. Sign up, then open this link to become its operator (it works once, for ${SETUP_TOKEN_HOURS} h):`);
  process.stdout.write(`\n    ${origin}/setup/${setupToken}\n\n`);
  log("Or name operators in OPERATOR_EMAILS, or run: npm run cli -- user promote <email>");
}
if (stack.x402Wallet) {
  const w = stack.x402Wallet;
  log(`x402 is on, on a local chain (${w.network}, RPC ${w.rpcUrl}). Calls without an API key are answered 402 with what they accept.`);
  log(`A demo payer holds 1,000,000 test USDC (${w.asset}): ${w.payer}`);
  log("Pay with the official client: npm run cli -- x402 demo-wallet --json prints its key; docs/X402.md has a script.");
}
// From here on the stack keeps its processes running until a signal stops it (shutdown).
