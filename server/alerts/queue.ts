// The pg-boss queue of webhook deliveries: one job per delivery row, retried with exponential
// backoff. pg-boss waits retryDelay × 2^n × (1 to 2) seconds before retry n+1, at most
// retryDelayMax: with these numbers the 14 retries of a delivery spread over 3 to 4 hours before
// it is marked failed.
import type { PgBoss } from "pg-boss";
import { jobQueue } from "../infra/jobs/boss";

export const DELIVERY_QUEUE = "webhook-delivery";
export const RETRY_LIMIT = 14;
export const DELIVERY_RETRY = { retryLimit: RETRY_LIMIT, retryDelay: 1, retryBackoff: true, retryDelayMax: 3600 } as const;

export type DeliveryJob = { deliveryId: string };

/** The started queues on which the delivery queue was created (a stopped and restarted queue is a new one). */
const ready = new WeakMap<PgBoss, Promise<void>>();

/** The started queue, with the delivery queue created (once per started queue). */
export async function deliveryQueue(): Promise<PgBoss> {
  const boss = await jobQueue();
  let creating = ready.get(boss);
  if (!creating) {
    creating = boss.createQueue(DELIVERY_QUEUE, { notify: true, ...DELIVERY_RETRY });
    creating.catch(() => ready.delete(boss));
    ready.set(boss, creating);
  }
  await creating;
  return boss;
}
