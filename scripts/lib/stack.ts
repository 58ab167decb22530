// Boots the whole gateway: database (embedded unless DATABASE_URL is given), migrations, the
// built-in node, seeding, and the Next.js server. Used by `npm start` and by the test harness.
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
import { checkAllNodes } from "../../server/routing/nodes/health-check";
import { registerNode } from "../../server/routing/nodes/register-node";
import { localSecret, useSecret } from "../../server/infra/secret-box";
import { freePort } from "../../server/infra/net/free-port";
import { ensureDemoWorkspace } from "../../server/identity/workspaces/demo-workspace";
import { ensureBuilt } from "./build";
import { spawnGateway, spawnLocalNode, stopChild, waitForHttp, type Child } from "./processes";

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
  localNodeUrl: string | null;
  secret: string;
  demo: { workspaceId: string; secret: string } | null;
  /** Resolves when a child process exits on its own (a crash). */
  crashed: Promise<string>;
  stop: () => Promise<void>;
};

/** The built-in node's own key: generated once per data dir, stored encrypted in the node row. */
function localNodeKey(dataDir: string): string {
  const file = path.join(dataDir, "local-node-key");
  if (!existsSync(file)) writeFileSync(file, `ln-${randomBytes(24).toString("base64url")}`, { mode: 0o600 });
  return readFileSync(file, "utf8").trim();
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const release = lockDataDir(opts.role, opts.dataDir);
  const children: Child[] = [];
  let pg: EmbeddedDatabase | undefined;
  let stopping: Promise<void> | undefined;
  let runtime: RuntimeInfo | undefined;
  /** Stops what was started so far, in reverse order; safe to call more than once. */
  const stop = () =>
    (stopping ??= (async () => {
      for (const child of [...children].reverse()) await stopChild(child);
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
  const track = (child: Child) => {
    children.push(child);
    if (runtime) writeRuntimeInfo((runtime = { ...runtime, children: children.map((c) => identify(c.proc.pid!)) }), opts.dataDir);
  };
  opts.onStoppable?.(stop);
  try {
    // One secret for every process of this gateway: they all seal and open node keys.
    const secret = env.GATEWAY_SECRET ?? localSecret(opts.dataDir);
    useSecret(secret);
    await ensureBuilt(opts.distDir, opts.log);
    check();
    if (!opts.databaseUrl) {
      opts.log(`Starting the embedded PostgreSQL in ${path.join(opts.dataDir, "pg")}`);
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
      const node = spawnLocalNode(port, key, opts.stdio);
      track(node);
      await waitForHttp(`http://127.0.0.1:${port}/health`, node);
      localNodeUrl = `http://127.0.0.1:${port}/v1`;
      const reg = await registerNode({ name: "local", url: localNodeUrl, apiKey: key, city: env.LOCAL_NODE_CITY, country: env.LOCAL_NODE_COUNTRY });
      if (reg.imported.length) opts.log(`Catalog: imported ${reg.imported.join(", ")} from the built-in node`);
    }
    const demo = await ensureDemoWorkspace(env.DEMO_CREDITS);
    await checkAllNodes();
    check();

    const gateway = spawnGateway(
      {
        port: opts.port,
        host: opts.host,
        distDir: opts.distDir,
        env: { DATABASE_URL: databaseUrl, GATEWAY_SECRET: secret, DATA_DIR: opts.dataDir },
      },
      opts.stdio,
    );
    track(gateway);
    const baseUrl = `http://127.0.0.1:${opts.port}`;
    await waitForHttp(`${baseUrl}/health`, gateway);
    const crashed = Promise.race(children.map((c) => c.exited.then((code) => `${c.name} exited (code ${code})`)));
    return { baseUrl, databaseUrl, localNodeUrl, demo, secret, crashed, stop };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
