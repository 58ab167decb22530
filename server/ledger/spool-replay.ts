// Commits what the usage spools of processes no longer running still hold (usage-spool.ts), with
// the shared replay (infra/spool/replay.ts): idempotent by movement ids, so a movement the dead
// process had already committed changes nothing.
import type { ProcessIdentity } from "../infra/db/process-identity";
import { replaySpool, spoolDir } from "../infra/spool/replay";
import { behindQueryable } from "../infra/db/write-pool";
import { logFor } from "../infra/telemetry/log";
import { applyMovements, isRejection, type Movement } from "./movements";
import { SPOOL_PREFIX } from "./usage-spool";

const log = logFor("ledger");
const BATCH = 500;

export { spoolDir };

async function commitAll(movements: Movement[], file: string): Promise<number> {
  let inserted = 0;
  for (let i = 0; i < movements.length; i += BATCH) {
    const batch = movements.slice(i, i + BATCH);
    try {
      inserted += (await applyMovements(behindQueryable, batch)).inserted.size;
    } catch {
      for (const m of batch) {
        try {
          inserted += (await applyMovements(behindQueryable, [m])).inserted.size;
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
 * Replays the usage spool files of processes that are not running. Returns how many movements
 * were committed that were not before. A failure leaves the file for the next try.
 */
export function replaySpools(dir: string, me?: ProcessIdentity): Promise<number> {
  return replaySpool<Movement>(dir, SPOOL_PREFIX, commitAll, me);
}
