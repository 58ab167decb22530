// Emitting an alert: one WebhookDelivery row per subscribed webhook, keyed by (webhook, event id),
// and one pg-boss job per row, in one transaction. The event id is deterministic (made from what
// happened: the node and its state, the movement that crossed a threshold, the cap and its period),
// so two instances, or two processes, noticing the same thing insert one row: the second insert
// hits the unique key and does nothing (ON CONFLICT DO NOTHING), and enqueues nothing.
//
// emitAlert never throws into its caller and never makes it wait: it is called from request
// paths (a refused call), the usage writer's commit and background loops; its work runs behind
// them and a failure is logged. A process also remembers the event ids it emitted recently, so a
// client retrying a refused call over and over does not cost a query per retry.
import { randomUUID } from "node:crypto";
import { boundedLru } from "../infra/cache/bounded-lru";
import { db } from "../infra/db/client";
import { inTransaction } from "../infra/jobs/boss";
import { logFor } from "../infra/telemetry/log";
import type { AlertBody, AlertType } from "./events";
import { DELIVERY_QUEUE, DELIVERY_RETRY, deliveryQueue, type DeliveryJob } from "./queue";
import { subscribersAnywhere, subscribersOf, type Subscriber } from "./subscribers";

const log = logFor("alerts");

const recent = boundedLru<string, true>(50_000, { ttl: 10 * 60_000 });

export type EmitOptions = {
  /** Only these webhooks (e.g. those whose threshold was crossed); default: every subscriber. */
  webhookIds?: readonly string[];
};

/** Inserts the deliveries of one event to `subscribers` and enqueues them; returns how many were new. */
async function enqueue(subscribers: Subscriber[], type: AlertType, eventId: string, data: Record<string, unknown>): Promise<number> {
  if (!subscribers.length) return 0;
  const boss = await deliveryQueue();
  const createdAt = Math.floor(Date.now() / 1000);
  return db.$transaction(async (tx) => {
    let inserted = 0;
    for (const w of subscribers) {
      const body: AlertBody = { id: eventId, type, created_at: createdAt, workspace_id: w.workspaceId, data };
      const rows = await tx.$queryRaw<{ id: string }[]>`
        INSERT INTO "WebhookDelivery" ("id", "webhookId", "eventId", "eventType", "payload", "status", "attempts", "createdAt")
        VALUES (${`whd_${randomUUID()}`}, ${w.id}, ${eventId}, ${type}, ${JSON.stringify(body)}::jsonb, 'pending', 0, now())
        ON CONFLICT ("webhookId", "eventId") DO NOTHING
        RETURNING "id"`;
      for (const { id } of rows) {
        const job: DeliveryJob = { deliveryId: id };
        await boss.send(DELIVERY_QUEUE, job, { db: inTransaction(tx), ...DELIVERY_RETRY });
        inserted++;
      }
    }
    return inserted;
  });
}

/** emitAlert, awaited: resolves with the number of deliveries this call created (0 for a repeat). */
export async function emitAlertNow(workspaceId: string, type: AlertType, eventId: string, data: Record<string, unknown>, opts: EmitOptions = {}): Promise<number> {
  const key = `${workspaceId}\n${eventId}`;
  if (recent.has(key)) return 0;
  let subscribers = await subscribersOf(workspaceId, type);
  if (opts.webhookIds) subscribers = subscribers.filter((w) => opts.webhookIds!.includes(w.id));
  if (!subscribers.length) return 0;
  const created = await enqueue(subscribers, type, eventId, data);
  recent.set(key, true);
  return created;
}

/**
 * Sends `type` (event `eventId`) to the workspace's webhooks subscribed to it, in the background.
 * Never throws and returns at once; failures are logged.
 */
export function emitAlert(workspaceId: string, type: AlertType, eventId: string, data: Record<string, unknown>, opts: EmitOptions = {}): void {
  void emitAlertNow(workspaceId, type, eventId, data, opts).catch((err: unknown) => log.error({ err, workspaceId, type, eventId }, "alert not emitted"));
}

/**
 * An event of the gateway itself (a node went down or came back): nodes serve every workspace, so
 * it goes to every workspace's webhooks subscribed to it. In the background, like emitAlert.
 */
export function emitGatewayAlert(type: AlertType, eventId: string, data: Record<string, unknown>): void {
  if (recent.has(`*\n${eventId}`)) return;
  void subscribersAnywhere(type)
    .then((subscribers) => enqueue(subscribers, type, eventId, data))
    .then(() => void recent.set(`*\n${eventId}`, true))
    .catch((err: unknown) => log.error({ err, type, eventId }, "alert not emitted"));
}
