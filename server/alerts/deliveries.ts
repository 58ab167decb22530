// A webhook's recent deliveries with their attempts, for the dashboard and the CLI.
import { z } from "zod";
import { db } from "../infra/db/client";
import { errors } from "../kernel/errors";

export const ZDeliveryView = z.object({
  object: z.literal("webhook.delivery"),
  id: z.string(),
  event_id: z.string(),
  type: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int(),
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: z.number().int(),
  delivered_at: z.number().int().nullable(),
});
export type DeliveryView = z.infer<typeof ZDeliveryView>;

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** The newest `limit` deliveries of the workspace's webhook `webhookId` (404 for another workspace's). */
export async function listDeliveries(workspaceId: string, webhookId: string, limit = 50): Promise<DeliveryView[]> {
  const hook = await db.webhook.findFirst({ where: { id: webhookId, workspaceId }, select: { id: true } });
  if (!hook) throw errors.notFound(`No webhook ${webhookId} in this workspace.`, "webhook_not_found", "webhook_id");
  const rows = await db.webhookDelivery.findMany({ where: { webhookId }, orderBy: { createdAt: "desc" }, take: Math.min(Math.max(limit, 1), 200) });
  return rows.map((r) => ({
    object: "webhook.delivery",
    id: r.id,
    event_id: r.eventId,
    type: r.eventType,
    status: r.status as DeliveryView["status"],
    attempts: r.attempts,
    last_status: r.lastStatus,
    last_error: r.lastError,
    created_at: seconds(r.createdAt),
    delivered_at: r.deliveredAt ? seconds(r.deliveredAt) : null,
  }));
}
