// Where a new workspace stands on the way to its first call, for the getting-started page's
// checklist: a key, credits, a call seen in usage. Plus what its snippets need: a chat model of
// the catalog and the gateway's public address when one is configured.
import { z } from "zod";
import { db } from "../../infra/db/client";
import { env } from "../../infra/env";
import { formatMoney } from "../../kernel/money";

export const ZGettingStarted = z.object({
  hasKey: z.boolean(),
  balance: z.string(),
  hasCredits: z.boolean(),
  hasCalls: z.boolean(),
  model: z.string().nullable(),
  publicBaseUrl: z.string().nullable(),
});
export type GettingStarted = z.infer<typeof ZGettingStarted>;

/** A chat model for the snippets: one that is priced and served by a node online now, else any chat model (never a workspace's fine-tuned one). */
async function snippetModel(): Promise<{ id: string } | null> {
  const chat = { type: "chat", deprecated: false, ownerWorkspaceId: null } as const;
  const served = { ...chat, pricingStatus: { not: "unpriced" }, nodes: { some: { node: { enabled: true, status: "online" } } } } as const;
  return (
    (await db.model.findFirst({ where: served, orderBy: { id: "asc" }, select: { id: true } })) ??
    (await db.model.findFirst({ where: chat, orderBy: { id: "asc" }, select: { id: true } }))
  );
}

export async function gettingStarted(workspaceId: string): Promise<GettingStarted> {
  const [workspace, key, call, model] = await Promise.all([
    db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { balance: true } }),
    db.apiKey.findFirst({ where: { workspaceId, revokedAt: null }, select: { id: true } }),
    db.usageEvent.findFirst({ where: { workspaceId }, select: { id: true } }),
    snippetModel(),
  ]);
  return {
    hasKey: key !== null,
    balance: formatMoney(workspace.balance),
    hasCredits: workspace.balance.gt(0),
    hasCalls: call !== null,
    model: model?.id ?? null,
    publicBaseUrl: env.PUBLIC_BASE_URL ?? null,
  };
}
