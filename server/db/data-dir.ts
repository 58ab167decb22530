// The project's data directory and the lock that keeps two gateways off one embedded database.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "../env";
import { projectRoot } from "../paths";

export function dataDir(): string {
  return path.resolve(projectRoot, env.DATA_DIR);
}

export function dataPath(...parts: string[]): string {
  return path.join(dataDir(), ...parts);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export type RuntimeInfo = { pid: number; databaseUrl: string; startedAt: string; role: string };

/** Who holds the data dir now, if anyone still alive does. */
export function currentHolder(dir = dataDir()): RuntimeInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path.join(dir, "runtime.json"), "utf8")) as RuntimeInfo;
    return alive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

export class DataDirBusyError extends Error {
  constructor(dir: string, holder: RuntimeInfo) {
    super(
      `The data directory ${dir} is already in use by ${holder.role} (pid ${holder.pid}, since ${holder.startedAt}). ` +
        `Stop it first, or set DATA_DIR to another directory.`,
    );
  }
}

/**
 * Takes the data dir for this process. The lock file is created with O_EXCL, so two processes
 * racing for it cannot both win; a lock left by a dead process is taken over.
 */
export function lockDataDir(role: string, dir = dataDir()): () => void {
  mkdirSync(dir, { recursive: true });
  const lockFile = path.join(dir, "gateway.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: "wx" });
      return () => {
        rmSync(lockFile, { force: true });
        rmSync(path.join(dir, "runtime.json"), { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number(readFileSync(lockFile, "utf8"));
      if (pid && alive(pid)) {
        const holder = currentHolder(dir) ?? { pid, role: "a gateway that is still starting", databaseUrl: "", startedAt: "just now" };
        throw new DataDirBusyError(dir, holder);
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`could not lock ${dir}`);
}

export function writeRuntimeInfo(info: RuntimeInfo, dir = dataDir()): void {
  writeFileSync(path.join(dir, "runtime.json"), JSON.stringify(info), { mode: 0o600 });
}
