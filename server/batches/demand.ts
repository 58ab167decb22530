// When an instance needs its batch process (server/transport/node/gateway-server.ts): a batch that
// is not finished, anywhere. The process is started when a batch is created (NOTIFY from the
// creating transaction, on every instance) or found waiting (at boot, and every DEMAND_POLL_MS,
// for a batch whose worker died on another instance and whose job pg-boss retries), and ends
// once it has had nothing to run for BATCH_PROCESS_IDLE_SECONDS. An instance with no batches
// runs no batch process: it costs the live calls nothing, not even its memory.
import { db } from "../infra/db/client";
import { Channel, listen } from "../infra/db/notify";

/** How often the first process looks for batches waiting, besides being told of new ones. */
export const DEMAND_POLL_MS = 30_000;

/** Whether any batch is not finished yet (one that still validates, runs, finalizes or is being cancelled). */
export async function batchWorkWaiting(): Promise<boolean> {
  const row = await db.batch.findFirst({ where: { status: { in: ["validating", "in_progress", "finalizing", "cancelling"] } }, select: { id: true } });
  return row !== null;
}

/** Calls `created` when a batch is created (on any instance), and `unsure` after a reconnect of the listening connection (one may have been missed). */
export function onBatchQueued(created: () => void, unsure: () => void): Promise<void> {
  return listen(Channel.batchQueued, (payload) => (payload === "*" ? unsure() : created()));
}
