// Boots the whole gateway: database (embedded unless DATABASE_URL is given), migrations, the
// built-in node, seeding, and the Next.js server. Used by `npm start` and by the test harness.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { disconnectDb, useDatabase } from "../../server/db/client";
import { lockDataDir, writeRuntimeInfo } from "../../server/db/data-dir";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../../server/db/embedded";
import { applyMigrations } from "../../server/db/migrate";
import { stopListening } from "../../server/db/notify";
import { env } from "../../server/env";
import { checkAllNodes } from "../../server/network/health-check";
import { registerNode } from "../../server/network/register-node";
import { localSecret, useSecret } from "../../server/network/secret-box";
import { freePort } from "../../server/net/free-port";
import { ensureDemoWorkspace } from "../../server/workspaces/demo-workspace";
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
  const stop = async () => {
    for (const child of children.reverse()) await stopChild(child);
    await stopListening();
    await disconnectDb();
    await pg?.stop();
    release();
  };
  try {
    // One secret for every process of this gateway: they all seal and open node keys.
    const secret = env.GATEWAY_SECRET ?? localSecret(opts.dataDir);
    useSecret(secret);
    ensureBuilt(opts.distDir, opts.log);
    if (!opts.databaseUrl) {
      opts.log(`Starting the embedded PostgreSQL in ${path.join(opts.dataDir, "pg")}`);
      pg = await startEmbeddedDatabase(opts.dataDir);
    }
    const databaseUrl = opts.databaseUrl ?? pg!.url;
    useDatabase(databaseUrl);
    writeRuntimeInfo({ pid: process.pid, databaseUrl, startedAt: new Date().toISOString(), role: opts.role }, opts.dataDir);
    const applied = await applyMigrations(databaseUrl);
    if (applied.length) opts.log(`Applied migrations: ${applied.join(", ")}`);

    let localNodeUrl: string | null = null;
    if (env.LOCAL_NODE_ENABLED === "true") {
      const port = env.LOCAL_NODE_PORT || (await freePort());
      const key = localNodeKey(opts.dataDir);
      const node = spawnLocalNode(port, key, opts.stdio);
      children.push(node);
      await waitForHttp(`http://127.0.0.1:${port}/health`, node);
      localNodeUrl = `http://127.0.0.1:${port}/v1`;
      const reg = await registerNode({ name: "local", url: localNodeUrl, apiKey: key, city: env.LOCAL_NODE_CITY, country: env.LOCAL_NODE_COUNTRY });
      if (reg.imported.length) opts.log(`Catalog: imported ${reg.imported.join(", ")} from the built-in node`);
    }
    const demo = await ensureDemoWorkspace(env.DEMO_CREDITS);
    await checkAllNodes();

    const gateway = spawnGateway(
      {
        port: opts.port,
        host: opts.host,
        distDir: opts.distDir,
        env: { DATABASE_URL: databaseUrl, GATEWAY_SECRET: secret, DATA_DIR: opts.dataDir },
      },
      opts.stdio,
    );
    children.push(gateway);
    const baseUrl = `http://127.0.0.1:${opts.port}`;
    await waitForHttp(`${baseUrl}/health`, gateway);
    const crashed = Promise.race(children.map((c) => c.exited.then((code) => `${c.name} exited (code ${code})`)));
    return { baseUrl, databaseUrl, localNodeUrl, demo, secret, crashed, stop };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
