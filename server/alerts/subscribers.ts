// Which webhooks of a workspace listen, read through a short per-process cache: the usage writer
// tells the alerts of every batch it commits and a refused call of its refusal, and a workspace
// without webhooks (most of them) must cost no query each time. A change made here is seen at
// once by this process and within SUBSCRIBERS_TTL_MS by the others.
import { boundedLru } from "../infra/cache/bounded-lru";
import { db } from "../infra/db/client";
import type { AlertType } from "./events";

export type Subscriber = { id: string; workspaceId: string; events: string[]; balanceBelow: string | null; spendShare: string | null };

const SUBSCRIBERS_TTL_MS = 3000;

const cache = boundedLru<string, Promise<Subscriber[]>>(20_000, { ttl: SUBSCRIBERS_TTL_MS });

const select = { id: true, workspaceId: true, events: true, balanceBelow: true, spendShare: true } as const;

function toSubscriber(r: { id: string; workspaceId: string; events: string[]; balanceBelow: { toString(): string } | null; spendShare: { toString(): string } | null }): Subscriber {
  return { ...r, balanceBelow: r.balanceBelow?.toString() ?? null, spendShare: r.spendShare?.toString() ?? null };
}

/** The workspace's enabled webhooks. */
export function webhooksOf(workspaceId: string): Promise<Subscriber[]> {
  let found = cache.get(workspaceId);
  if (!found) {
    found = db.webhook.findMany({ where: { workspaceId, enabled: true }, select }).then((rows) => rows.map(toSubscriber));
    found.catch(() => cache.delete(workspaceId));
    cache.set(workspaceId, found);
  }
  return found;
}

/** The workspace's enabled webhooks subscribed to `type`. */
export async function subscribersOf(workspaceId: string, type: AlertType): Promise<Subscriber[]> {
  return (await webhooksOf(workspaceId)).filter((w) => w.events.includes(type));
}

/** Every enabled webhook of any workspace subscribed to `type` (the gateway's own events: nodes). */
export async function subscribersAnywhere(type: AlertType): Promise<Subscriber[]> {
  const rows = await db.webhook.findMany({ where: { enabled: true, events: { has: type } }, select });
  return rows.map(toSubscriber);
}

/** After a change of the workspace's webhooks: this process reads them again. */
export function forgetWebhooks(workspaceId: string): void {
  cache.delete(workspaceId);
}
