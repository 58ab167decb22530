// The project's data directory and the lock that keeps two gateways off one embedded database.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "../env";
import { projectRoot } from "../paths";
import { formatIdentity, identify, isRunning, parseIdentity, type ProcessIdentity } from "./process-identity";

export function dataDir(): string {
  return path.resolve(projectRoot, env.DATA_DIR);
}

export type RuntimeInfo = {
  pid: number;
  databaseUrl: string;
  startedAt: string;
  role: string;
  /** Processes started for this gateway, stopped by whoever takes over after a crash. */
  children?: ProcessIdentity[];
};

function readRuntime(dir: string): RuntimeInfo | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dir, "runtime.json"), "utf8")) as RuntimeInfo;
  } catch {
    return undefined;
  }
}

function readLock(file: string): ProcessIdentity | null {
  try {
    return parseIdentity(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

/** Who holds the data dir now, if that process is still alive. */
export function currentHolder(dir = dataDir()): RuntimeInfo | undefined {
  const lock = readLock(path.join(dir, "gateway.lock"));
  const info = readRuntime(dir);
  return lock && isRunning(lock) && info?.pid === lock.pid ? info : undefined;
}

export class DataDirBusyError extends Error {
  constructor(dir: string, role: string, pid: number, since: string) {
    super(`The data directory ${dir} is already in use by ${role} (pid ${pid}, since ${since}). Stop it first, or set DATA_DIR to another directory.`);
  }
}

/** After a crash, the children the dead holder started may still run: stop them. */
function stopOrphans(dir: string): void {
  for (const child of readRuntime(dir)?.children ?? []) {
    if (isRunning(child)) {
      try {
        process.kill(child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  rmSync(path.join(dir, "runtime.json"), { force: true });
}

function create(file: string): boolean {
  try {
    writeFileSync(file, formatIdentity(identify(process.pid)), { flag: "wx" });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

/**
 * Takes the data dir for this process. The lock file is created with O_EXCL, so two processes
 * racing for it cannot both win. A lock whose process is gone (same pid and start time) is taken
 * over under a second O_EXCL file, so two processes cannot both take over one stale lock.
 */
export function lockDataDir(role: string, dir = dataDir()): () => void {
  mkdirSync(dir, { recursive: true });
  const lockFile = path.join(dir, "gateway.lock");
  const guard = `${lockFile}.takeover`;
  const release = () => {
    rmSync(lockFile, { force: true });
    rmSync(path.join(dir, "runtime.json"), { force: true });
  };
  if (create(lockFile)) return release;
  const holder = readLock(lockFile);
  if (holder && isRunning(holder)) {
    const info = readRuntime(dir);
    const described = info?.pid === holder.pid ? info : undefined;
    throw new DataDirBusyError(dir, described?.role ?? "a gateway that is still starting", holder.pid, described?.startedAt ?? "just now");
  }
  const guardHolder = readLock(guard);
  if (guardHolder && isRunning(guardHolder)) throw new DataDirBusyError(dir, "another process taking over", guardHolder.pid, "just now");
  rmSync(guard, { force: true });
  if (!create(guard)) throw new DataDirBusyError(dir, "another process taking over", 0, "just now");
  try {
    stopOrphans(dir);
    rmSync(lockFile, { force: true });
    if (!create(lockFile)) throw new Error(`could not lock ${dir}`);
    return release;
  } finally {
    rmSync(guard, { force: true });
  }
}

export function writeRuntimeInfo(info: RuntimeInfo, dir = dataDir()): void {
  writeFileSync(path.join(dir, "runtime.json"), JSON.stringify(info), { mode: 0o600 });
}
