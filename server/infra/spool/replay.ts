// Commits what the spools of processes no longer running still hold (spool.ts). A file is
// claimed first, by renaming it with the claimer's identity appended, so two processes never
// replay one file; a claim whose claimer died is claimed again. The commit must be idempotent
// (records carry their ids), so a record the dead process had already committed changes nothing.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, renameSync, unlinkSync } from "node:fs";
import path from "node:path";
import { env } from "../env";
import { dataDir } from "../db/data-dir";
import { identify, isRunning, type ProcessIdentity } from "../db/process-identity";
import { behindQueryable } from "../db/write-pool";
import { logFor } from "../telemetry/log";
import { identityTag } from "./spool";

const log = logFor("spool");

/** The database's own id (kept in it): its spools are told apart from other databases' by it, whatever its URL. */
async function databaseId(): Promise<string> {
  const rows = await behindQueryable.$queryRawUnsafe<{ value: string }[]>(
    `WITH created AS (
       INSERT INTO "InstallSetting" ("key", "value", "updatedAt") VALUES ('database_id', $1, now())
       ON CONFLICT ("key") DO NOTHING RETURNING "value"
     )
     SELECT "value" FROM created UNION ALL SELECT "value" FROM "InstallSetting" WHERE "key" = 'database_id'`,
    randomBytes(12).toString("hex"),
  );
  return rows[0]!.value;
}

/**
 * This process's spool folder: USAGE_SPOOL_DIR (default DATA_DIR/usage-spool), one folder per
 * database, so a replay never writes one database's records into another. Null: spools are off.
 */
export async function spoolDir(base = env.USAGE_SPOOL_DIR): Promise<string | null> {
  if (base === "off") return null;
  const root = base ? path.resolve(base) : path.join(dataDir(), "usage-spool");
  return path.join(root, await databaseId());
}

/** The process that last wrote or claimed a spool file: the last `pid.start` in its name. */
function ownerOf(name: string): ProcessIdentity | null {
  const tags = name.replace(/\.jsonl$/, "").split("~").filter((part) => /^\d+\.\d*$/.test(part));
  const last = tags.at(-1);
  if (!last) return null;
  const [pid, startTime = ""] = last.split(".");
  return { pid: Number(pid), startTime };
}

function parse<T>(text: string, file: string): T[] {
  const records: T[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      // A line cut short by the kill: its call's answer never ended, so it was never owed.
      log.warn({ file }, "spool: an incomplete line was skipped");
    }
  }
  return records;
}

/**
 * Replays the `prefix` spool files of processes that are not running, with `commit` (which
 * returns how many records it committed that were not before, and throws to leave the file for
 * the next try). Returns the total.
 */
export async function replaySpool<T>(dir: string, prefix: string, commit: (records: T[], file: string) => Promise<number>, me: ProcessIdentity = identify(process.pid)): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(prefix) && n.endsWith(".jsonl"));
  } catch {
    return 0; // no spool yet
  }
  let total = 0;
  for (const name of names) {
    const owner = ownerOf(name);
    if (!owner || isRunning(owner)) continue;
    const claimed = path.join(dir, `${name.replace(/\.jsonl$/, "")}~${identityTag(me)}.jsonl`);
    try {
      renameSync(path.join(dir, name), claimed);
    } catch {
      continue; // another process claimed it first
    }
    const records = parse<T>(readFileSync(claimed, "utf8"), claimed);
    try {
      const inserted = await commit(records, claimed);
      unlinkSync(claimed);
      total += inserted;
      if (records.length) log.info({ file: name, records: records.length, committed: inserted }, "spool of a stopped process replayed");
    } catch (err) {
      log.error({ err, file: claimed }, "spool: replay failed; it is tried again later");
    }
  }
  return total;
}
