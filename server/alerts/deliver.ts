// The delivery worker: POSTs a delivery's JSON body, signed (signature.ts), to its webhook through
// the outbound guard, which resolves the host at send time and refuses a name that now points at
// a private address (DNS rebinding after the URL was accepted). A 2xx answer delivers it; any
// other answer, a refusal of the guard or a network failure records the attempt and throws, so
// pg-boss retries it with backoff (queue.ts), until the last try marks it failed.
//
// At least once: the row is marked delivered after the receiver's 2xx, so a worker that dies in
// between sends it again. Receivers deduplicate on the event id (`x-gateway-event-id`, the body's `id`).
import type { Job } from "pg-boss";
import { db } from "../infra/db/client";
import { guardedFetch } from "../infra/net/outbound-guard";
import { workOneAtATime } from "../infra/jobs/boss";
import { logFor } from "../infra/telemetry/log";
import { DELIVERY_QUEUE, RETRY_LIMIT, deliveryQueue, type DeliveryJob } from "./queue";
import { SIGNATURE_HEADER, signatureHeader } from "./signature";
import { webhookSecret } from "./webhooks";

const log = logFor("alerts");

/** What is kept of a failed attempt's answer or error. */
const ERROR_CHARS = 500;

class AttemptFailed extends Error {}

/** One attempt at a delivery; `lastTry`: a failure marks it failed rather than leaving it to a retry. */
export async function deliverOnce(deliveryId: string, lastTry: boolean): Promise<"delivered" | "gone" | "done"> {
  const delivery = await db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { webhook: true } });
  // Deleted with its webhook, or already delivered by an earlier attempt that then lost its job.
  if (!delivery || delivery.status !== "pending") return delivery ? "done" : "gone";
  const body = JSON.stringify(delivery.payload);
  let status: number | null = null;
  let error: string | null = null;
  if (!delivery.webhook.enabled) error = "the webhook is disabled";
  else {
    try {
      const res = await guardedFetch(delivery.webhook.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "gateway-webhooks/1",
          "x-gateway-event-id": delivery.eventId,
          "x-gateway-event-type": delivery.eventType,
          [SIGNATURE_HEADER]: signatureHeader(body, webhookSecret(delivery.webhook)),
        },
        body,
      });
      status = res.status;
      if (res.status < 200 || res.status >= 300) error = `answered ${res.status}: ${(await res.text()).slice(0, ERROR_CHARS)}`;
    } catch (err) {
      error = (err as Error).message.slice(0, ERROR_CHARS);
    }
  }
  const delivered = error === null;
  await db.webhookDelivery.update({
    where: { id: deliveryId },
    data: {
      attempts: { increment: 1 },
      lastStatus: status,
      lastError: error,
      status: delivered ? "delivered" : lastTry ? "failed" : "pending",
      deliveredAt: delivered ? new Date() : undefined,
    },
  });
  if (!delivered && !lastTry) throw new AttemptFailed(error!);
  return delivered ? "delivered" : "done";
}

async function work(job: Job<DeliveryJob>): Promise<void> {
  try {
    await deliverOnce(job.data.deliveryId, job.retryCount >= RETRY_LIMIT);
  } catch (err) {
    if (!(err instanceof AttemptFailed)) log.error({ err, deliveryId: job.data.deliveryId }, "webhook delivery attempt failed");
    throw err;
  }
}

/** Starts `concurrency` delivery workers in this process (each sends one delivery at a time). */
export async function startDeliveryWorkers(concurrency = 2): Promise<void> {
  await workOneAtATime<DeliveryJob>(await deliveryQueue(), DELIVERY_QUEUE, concurrency, work);
}
