// Batches give way to live calls. While the serving processes of this instance answer calls (they
// say so over IPC, server/transport/node/gateway-server.ts), its batch process starts lines at
// most BATCH_LIVE_LINES_PER_SECOND a second, one at a time; a second after the last live call it
// runs at full speed again (BATCH_CONCURRENCY lines in flight). A batch at full speed against a
// fast node drives about a thousand calls a second (the node, PostgreSQL, the pipeline): on a
// small host, live calls beside it were slower by a third at the median and twice at p99, while
// a batch has hours to finish. `npm run worker` processes are not told and run at full speed.
import { env } from "../infra/env";
import { sleep } from "./background-tier";

/** How long after the last live call the batch still gives way. */
const QUIET_MS = 1000;

let liveUntil = 0;
let nextStart = 0;

/** Live calls were answered on this instance just now. */
export function noteLiveTraffic(now = Date.now()): void {
  liveUntil = now + QUIET_MS;
}

/** Waits until a line may start: at once while no live call was answered lately, else its turn at the paced rate. */
export async function awaitLineStart(signal?: AbortSignal): Promise<void> {
  const rate = env.BATCH_LIVE_LINES_PER_SECOND;
  const now = Date.now();
  if (rate === 0 || now >= liveUntil) return;
  const at = Math.max(nextStart, now);
  nextStart = at + 1000 / rate;
  if (at > now) await sleep(at - now, signal);
}
