// Removing cache entries: all of a workspace's, or one model's, or one key's (dashboard, tRPC,
// `npm run cli -- cache clear`), dropped from every instance's memory by NOTIFY in the same
// transaction; and the sweep of expired entries, in bounded chunks, from every instance.
import { recordAudit, type AuditActor } from "../audit/record";
import { db } from "../infra/db/client";
import { Channel, notify } from "../infra/db/notify";
import { logFor } from "../infra/telemetry/log";

const log = logFor("response-cache");
const SWEEP_CHUNK = 5000;

export type ClearFilter = { model?: string; keyId?: string };

export async function clearCache(workspaceId: string, filter: ClearFilter = {}, actor?: AuditActor): Promise<{ object: "cache.cleared"; removed: number }> {
  return db.$transaction(async (tx) => {
    const removed = await tx.responseCacheEntry.deleteMany({
      where: { workspaceId, ...(filter.model ? { modelId: filter.model } : {}), ...(filter.keyId ? { apiKeyId: filter.keyId } : {}) },
    });
    const what = filter.model ? ` model:${filter.model}` : filter.keyId ? ` key:${filter.keyId}` : "";
    await notify(tx, Channel.responseCacheCleared, `${workspaceId}${what}`);
    const changes = {
      removed: { from: null, to: removed.count },
      ...(filter.model ? { model: { from: null, to: filter.model } } : {}),
      ...(filter.keyId ? { key: { from: null, to: filter.keyId } } : {}),
    };
    await recordAudit(tx, { workspaceId, actor, action: "cache.clear", target: { type: "cache", id: workspaceId }, changes });
    return { object: "cache.cleared", removed: removed.count };
  });
}

/** Deletes expired entries, a chunk at a time; returns how many. */
export async function sweepExpired(): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await db.$executeRaw`
      DELETE FROM "ResponseCacheEntry" WHERE ctid IN (
        SELECT ctid FROM "ResponseCacheEntry" WHERE "expiresAt" <= now() AT TIME ZONE 'UTC' LIMIT ${SWEEP_CHUNK})`;
    total += n;
    if (n < SWEEP_CHUNK) return total;
  }
}

/** Sweeps now and every `everyMs`; returns the timer. */
export function startCacheSweep(everyMs = 60_000): NodeJS.Timeout {
  const run = () => void sweepExpired().catch((err: unknown) => log.warn({ err }, "response cache: the sweep of expired entries failed"));
  run();
  return setInterval(run, everyMs).unref();
}
