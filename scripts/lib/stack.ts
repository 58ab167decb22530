// Boots the whole gateway: database (embedded unless DATABASE_URL is given), migrations, the
// built-in node, seeding, and the Next.js server. Used by `npm start` and by the test harness.
// The built-in node and the gateway server are supervised: when one dies it is started again
// (with backoff). The built-in node comes back on the same port while the gateway keeps serving
// the other nodes, and health checks route to it again once it answers. The gateway server
// replaces its own processes that die except the first, which holds the port: when that one dies
// (its others stop with it), the whole server is started again, and the new one commits the usage
// the dead one left in its spool before it serves.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { disconnectDb, useDatabase } from "../../server/infra/db/client";
import { lockDataDir, writeRuntimeInfo, type RuntimeInfo } from "../../server/infra/db/data-dir";
import { identify } from "../../server/infra/db/process-identity";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../../server/infra/db/embedded";
import { applyMigrations } from "../../server/infra/db/migrate";
import { stopListening } from "../../server/infra/db/notify";
import { closeWritePool } from "../../server/infra/db/write-pool";
import { env } from "../../server/infra/env";
import { checkAllNodes, checkNode } from "../../server/routing/nodes/health-check";
import { db } from "../../server/infra/db/client";
import { registerNode } from "../../server/routing/nodes/register-node";
import { localSecret, useSecret } from "../../server/infra/secret-box";
import { freePort } from "../../server/infra/net/free-port";
import { ensureDemoWorkspace } from "../../server/onboarding/demo-workspace";
import { ensureBuilt } from "./build";
import { spawnGateway, spawnLocalNode, supervise, waitForHttp, type Child } from "./processes";
import type { DemoWallet } from "./x402-local";

export type StackOptions = {
  dataDir: string;
  databaseUrl?: string;
  port: number;
  host: string;
  distDir: string;
  role: string;
  stdio?: "inherit" | "ignore";
  log: (line: string) => void;
  /** Receives the stop function as soon as there is something to stop (before any child starts). */
  onStoppable?: (stop: () => Promise<void>) => void;
};

export type Stack = {
  baseUrl: string;
  databaseUrl: string;
  /** Where the embedded PostgreSQL keeps its cluster; null with DATABASE_URL. */
  databaseDir: string | null;
  localNodeUrl: string | null;
  secret: string;
  demo: { workspaceId: string; secret: string } | null;
  /** X402_NETWORK=local: the dev chain's demo payer. */
  x402Wallet: DemoWallet | null;
  stop: () => Promise<void>;
};

/** The built-in node's own key: generated once per data dir, stored encrypted in the node row. */
function localNodeKey(dataDir: string): string {
  const file = path.join(dataDir, "local-node-key");
  if (!existsSync(file)) writeFileSync(file, `ln-${randomBytes(24).toString("base64url")}`, { mode: 0o600 });
  return readFileSync(file, "utf8").trim();
}

/** A process the stack started: the one running now, and how to stop it. */
type Part = { current: () => Child; stop: () => Promise<void>; stopRestarting?: () => void };

export async function startStack(opts: StackOptions): Promise<Stack> {
  const release = lockDataDir(opts.role, opts.dataDir);
  const parts: Part[] = [];
  let pg: EmbeddedDatabase | undefined;
  let stopping: Promise<void> | undefined;
  let runtime: RuntimeInfo | undefined;
  /** Stops what was started so far, in reverse order; safe to call more than once. */
  const stop = () =>
    (stopping ??= (async () => {
      // Nothing is restarted once stopping began (a Ctrl-C reaches every process at once).
      for (const part of parts) part.stopRestarting?.();
      for (const part of [...parts].reverse()) await part.stop();
      await stopListening();
      await closeWritePool();
      await disconnectDb();
      await pg?.stop();
      release();
    })());
  /** A stop requested while starting makes the next step throw instead of starting more. */
  const check = () => {
    if (stopping) throw new Error("stopped while starting");
  };
  /** Records the processes running now, for whoever takes over after a crash of this one. */
  const recordChildren = () => {
    const pids = parts.flatMap((p) => (p.current().proc.pid ? [p.current().proc.pid!] : []));
    if (runtime) writeRuntimeInfo((runtime = { ...runtime, children: pids.map((pid) => identify(pid)) }), opts.dataDir);
  };
  const track = (part: Part) => {
    parts.push(part);
    recordChildren();
  };
  opts.onStoppable?.(stop);
  try {
    // One secret for every process of this gateway: they all seal and open node keys.
    const secret = env.GATEWAY_SECRET ?? localSecret(opts.dataDir);
    useSecret(secret);
    await ensureBuilt(opts.distDir, opts.log);
    check();
    if (!opts.databaseUrl) {
      opts.log(`Starting the embedded PostgreSQL of ${path.resolve(opts.dataDir)}`);
      pg = await startEmbeddedDatabase(opts.dataDir);
    }
    check();
    const databaseUrl = opts.databaseUrl ?? pg!.url;
    useDatabase(databaseUrl);
    runtime = { pid: process.pid, databaseUrl, startedAt: new Date().toISOString(), role: opts.role, children: [] };
    writeRuntimeInfo(runtime, opts.dataDir);
    const applied = await applyMigrations(databaseUrl);
    check();
    if (applied.length) opts.log(`Applied migrations: ${applied.join(", ")}`);

    let localNodeUrl: string | null = null;
    if (env.LOCAL_NODE_ENABLED === "true") {
      const port = env.LOCAL_NODE_PORT || (await freePort());
      const key = localNodeKey(opts.dataDir);
      const health = `http://127.0.0.1:${port}/health`;
      let nodeId: string | undefined;
      const node = supervise(() => spawnLocalNode(port, key, path.join(path.resolve(opts.dataDir), "local-node"), opts.stdio), {
        onExit: (_child, how, wait) => opts.log(`The built-in node exited (${how}); starting it again in ${wait} ms`),
        onRestart: async (child) => {
          recordChildren();
          await waitForHttp(health, child);
          opts.log("The built-in node is back");
          // Checked now rather than at the gateway's next health check, so calls go to it again at once.
          const row = nodeId ? await db.node.findUnique({ where: { id: nodeId }, select: { id: true, baseUrl: true, apiKeyEncrypted: true, status: true } }) : null;
          if (row) await checkNode(row);
        },
      });
      track(node);
      await waitForHttp(health, node.current());
      localNodeUrl = `http://127.0.0.1:${port}/v1`;
      const reg = await registerNode({ name: "local", url: localNodeUrl, apiKey: key, city: env.LOCAL_NODE_CITY, country: env.LOCAL_NODE_COUNTRY });
      nodeId = reg.nodeId;
      if (reg.imported.length) opts.log(`Catalog: imported ${reg.imported.join(", ")} from the built-in node`);
    }
    const demo = await ensureDemoWorkspace(env.DEMO_CREDITS);
    await checkAllNodes();
    check();

    // X402_NETWORK=local: the dev chain the gateway's x402 payments are made on.
    let x402Env: Record<string, string> = {};
    let x402Wallet: DemoWallet | null = null;
    if (env.X402_NETWORK === "local") {
      opts.log("Starting the local x402 chain (anvil) and deploying its token, Permit2 and the x402 proxies");
      // Loaded only then: viem and the chain's artifacts are of no use otherwise.
      const { startLocalChain } = await import("./x402-local");
      const local = await startLocalChain(opts.dataDir);
      const exited = new Promise<number | null>(() => undefined);
      track({ current: () => ({ name: "local chain", proc: { pid: local.anvil.pid } as Child["proc"], exited }), stop: () => local.anvil.stop() });
      x402Env = local.env;
      x402Wallet = local.wallet;
      check();
    }

    const baseUrl = `http://127.0.0.1:${opts.port}`;
    // The embedded database's backends that write behind the answers yield the CPU (infra/db/write-pool.ts); another database's processes are not ours.
    const behindNice = String(pg ? env.EMBEDDED_POSTGRES_NICE : 0);
    const serverEnv = { DATABASE_URL: databaseUrl, GATEWAY_SECRET: secret, DATA_DIR: opts.dataDir, BEHIND_WRITES_NICE: behindNice, ...x402Env };
    const gateway = supervise(() => spawnGateway({ port: opts.port, host: opts.host, distDir: opts.distDir, env: serverEnv }, opts.stdio), {
      onExit: (_child, how, wait) => opts.log(`The gateway server exited (${how}); starting it again in ${wait} ms`),
      onRestart: async (child) => {
        recordChildren();
        await waitForHttp(`${baseUrl}/health`, child);
        opts.log("The gateway server is back");
      },
    });
    // It drains for SHUTDOWN_DRAIN_MS on SIGTERM before it exits (server/transport/node/gateway-server.ts).
    track({ current: gateway.current, stop: () => gateway.stop(env.SHUTDOWN_DRAIN_MS + 10_000) });
    await waitForHttp(`${baseUrl}/health`, gateway.current());
    return { baseUrl, databaseUrl, databaseDir: pg?.dir ?? null, localNodeUrl, demo, x402Wallet, secret, stop };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
