// Boots a whole gateway for the test run: its own embedded PostgreSQL in a temp folder (never
// the data dir of a running gateway) or, when DATABASE_URL is set, a fresh database created on
// that server and dropped afterwards; migrations; the built-in node; the Next.js server.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { freePort } from "../../server/net/free-port";
import { startStack, type Stack } from "../../scripts/lib/stack";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    demoKey: string;
    demoWorkspaceId: string;
  }
}

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

let stack: Stack | undefined;
let dataDir: string | undefined;
let dropDatabase: (() => Promise<void>) | undefined;

export async function setup(project: TestProject): Promise<void> {
  // For a quick run of tests that need no gateway (e.g. the built-in node's own tests).
  if (process.env.GATEWAY_TEST_STACK === "off") return;
  // Faster health checks, so tests that take nodes down and up need not wait long.
  process.env.HEALTH_CHECK_INTERVAL_MS = "500";
  process.env.BREAKER_COOLDOWN_MS = "1500";
  // Short enough for a test to watch a node time out (the built-in node's [sim:slow] waits 2 s).
  process.env.UPSTREAM_FIRST_BYTE_TIMEOUT_MS = "3000";
  // Video jobs: poll nodes often, and look for dead workers and timed-out jobs every second.
  process.env.VIDEO_POLL_INTERVAL_MS = "200";
  process.env.JOB_MONITOR_INTERVAL_SECONDS = "1";
  process.env.JOB_POLL_INTERVAL_SECONDS = "1";
  // A throwaway data dir under the system temp folder, which the `postgres` user can always
  // reach (the project may live under a folder only root can enter).
  dataDir = mkdtempSync(path.join(tmpdir(), "gateway-test-"));
  let databaseUrl: string | undefined;
  if (process.env.DATABASE_URL) {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL);
    databaseUrl = scratch.url;
    dropDatabase = scratch.drop;
  }
  stack = await startStack({
    dataDir,
    databaseUrl,
    port: await freePort(),
    host: "127.0.0.1",
    // Separate folders let several test runs (e.g. in different checkouts of the same tree) build side by side.
    distDir: process.env.TEST_DIST_DIR ?? ".next-test",
    role: "npm test",
    stdio: "ignore",
    log: (line) => process.stdout.write(`[test setup] ${line}\n`),
  });
  // Test files run in worker processes that inherit this environment.
  process.env.DATABASE_URL = stack.databaseUrl;
  process.env.DATA_DIR = dataDir;
  process.env.GATEWAY_SECRET = stack.secret;
  project.provide("baseUrl", stack.baseUrl);
  project.provide("databaseUrl", stack.databaseUrl);
  project.provide("demoKey", stack.demo!.secret);
  project.provide("demoWorkspaceId", stack.demo!.workspaceId);
}

export async function teardown(): Promise<void> {
  await stack?.stop();
  await dropDatabase?.();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
