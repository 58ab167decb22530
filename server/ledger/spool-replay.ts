// Commits what the usage spools of processes no longer running still hold (usage-spool.ts). A
// file is claimed first, by renaming it with the claimer's identity appended, so two processes
// never replay one file; a claim whose claimer died is claimed again. Replaying is idempotent
// (movement ids), so a movement the dead process had already committed changes nothing.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, renameSync, unlinkSync } from "node:fs";
import path from "node:path";
import { env } from "../infra/env";
import { dataDir } from "../infra/db/data-dir";
import { identify, isRunning, type ProcessIdentity } from "../infra/db/process-identity";
import { writeQueryable } from "../infra/db/write-pool";
import { logFor } from "../infra/telemetry/log";
import { applyMovements, isRejection, type Movement } from "./movements";
import { identityTag, SPOOL_PREFIX } from "./usage-spool";

const log = logFor("ledger");
const BATCH = 500;

/** The database's own id (kept in it): its spools are told apart from other databases' by it, whatever its URL. */
async function databaseId(): Promise<string> {
  const rows = await writeQueryable.$queryRawUnsafe<{ value: string }[]>(
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
 * database, so a replay never writes one database's usage into another. Null: the spool is off.
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

function parse(text: string, file: string): Movement[] {
  const movements: Movement[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      movements.push(JSON.parse(line) as Movement);
    } catch {
      // A line cut short by the kill: its call's answer never ended, so it was never owed.
      log.warn({ file }, "usage spool: an incomplete line was skipped");
    }
  }
  return movements;
}

async function commitAll(movements: Movement[], file: string): Promise<number> {
  let inserted = 0;
  for (let i = 0; i < movements.length; i += BATCH) {
    const batch = movements.slice(i, i + BATCH);
    try {
      inserted += (await applyMovements(writeQueryable, batch)).inserted.size;
    } catch {
      for (const m of batch) {
        try {
          inserted += (await applyMovements(writeQueryable, [m])).inserted.size;
        } catch (err) {
          // The database is unreachable or failing: the file stays for the next try.
          if (!isRejection(err)) throw err;
          log.error({ err, file, movement: m.id, workspaceId: m.workspaceId }, "usage spool: the database refused a movement; it is dropped");
        }
      }
    }
  }
  return inserted;
}

/**
 * Replays the spool files of processes that are not running. Returns how many movements were
 * committed that were not before. A failure leaves the file for the next try.
 */
export async function replaySpools(dir: string, me: ProcessIdentity = identify(process.pid)): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(SPOOL_PREFIX) && n.endsWith(".jsonl"));
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
    const movements = parse(readFileSync(claimed, "utf8"), claimed);
    try {
      const inserted = await commitAll(movements, claimed);
      unlinkSync(claimed);
      total += inserted;
      if (movements.length) log.info({ file: name, movements: movements.length, committed: inserted }, "usage spool of a stopped process replayed");
    } catch (err) {
      log.error({ err, file: claimed }, "usage spool: replay failed; it is tried again later");
    }
  }
  return total;
}
