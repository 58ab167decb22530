// Boots a whole gateway for a test run: its own embedded PostgreSQL in a temp folder (never
// the data dir of a running gateway) or, when DATABASE_URL is set, a fresh database created on
// that server and dropped afterwards; migrations; the built-in node; the Next.js server.
// Used by the vitest run and by the browser tests (each gets its own database).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "../../server/infra/net/free-port";
import { startStack, type Stack } from "../../scripts/lib/stack";

async function createScratchDatabase(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `gateway_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export type TestStack = { stack: Stack; dataDir: string; teardown: () => Promise<void> };

export async function bootTestStack(role: string, serverDatabaseUrl = process.env.DATABASE_URL): Promise<TestStack> {
  // Faster health checks, so tests that take nodes down and up need not wait long.
  process.env.HEALTH_CHECK_INTERVAL_MS = "500";
  process.env.BREAKER_COOLDOWN_MS = "1500";
  // A test that leaves a stream or a background run open must not hold the teardown for 30 s.
  process.env.SHUTDOWN_DRAIN_MS = "2000";
  // Well above the built-in node's slowest first byte under a loaded test run (its [sim:slow]
  // waits 2 s; a transcription decoded on a busy 2-core machine, with the browser tests running
  // beside, took over 8 s), below the default 60 s so that a node that never answers fails fast.
  process.env.UPSTREAM_FIRST_BYTE_TIMEOUT_MS = "25000";
  // Answers wait for their usage commit, so a test can read a call's usage as soon as it has the
  // answer. The usage spool (the default) is tested on its own (tests/api/instances-sigkill.test.ts, tests/integration/usage-spool.test.ts).
  process.env.USAGE_SPOOL_DIR ??= "off";
  // Video jobs: poll nodes often, and look for dead workers and timed-out jobs every second.
  process.env.VIDEO_POLL_INTERVAL_MS = "200";
  process.env.JOB_MONITOR_INTERVAL_SECONDS = "1";
  process.env.JOB_POLL_INTERVAL_SECONDS = "1";
  // Three fine-tuning workers in the test gateway: two test files' jobs run side by side instead
  // of one file's waiting behind the other's (tests/api/fine-tuning-sigkill.test.ts creates jobs
  // until one is held by the worker it started, whatever these hold).
  process.env.FINE_TUNE_WORKERS ??= "3";
  // Tests serve trusted issuers' JWKS (and other tenant-chosen URLs) from local servers on
  // 127.0.0.1, which the outbound guard refuses unless the operator allows it. 127.0.0.2,
  // 10.0.0.0/8, 169.254.169.254 and localhost stay refused, for the tests of the guard itself.
  process.env.OUTBOUND_ALLOW = "127.0.0.1";
  // A throwaway data dir under the system temp folder, which the `postgres` user can always
  // reach (the project may live under a folder only root can enter).
  const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-test-"));
  const scratch = serverDatabaseUrl ? await createScratchDatabase(serverDatabaseUrl) : undefined;
  const stack = await startStack({
    dataDir,
    databaseUrl: scratch?.url,
    port: await freePort(),
    host: "127.0.0.1",
    // Separate folders let several test runs (e.g. in different checkouts of the same tree) build side by side.
    distDir: process.env.TEST_DIST_DIR ?? ".next-test",
    role,
    // GATEWAY_TEST_LOGS=1 shows the gateway's and the node's own output (for debugging a failing run).
    stdio: process.env.GATEWAY_TEST_LOGS === "1" ? "inherit" : "ignore",
    log: (line) => process.stdout.write(`[test setup] ${line}\n`),
  });
  const teardown = async () => {
    await stack.stop();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { stack, dataDir, teardown };
}
