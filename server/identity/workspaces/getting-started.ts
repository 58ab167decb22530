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

export async function gettingStarted(workspaceId: string): Promise<GettingStarted> {
  const [workspace, key, call, model] = await Promise.all([
    db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { balance: true } }),
    db.apiKey.findFirst({ where: { workspaceId, revokedAt: null }, select: { id: true } }),
    db.usageEvent.findFirst({ where: { workspaceId }, select: { id: true } }),
    db.model.findFirst({ where: { type: "chat", deprecated: false }, orderBy: { id: "asc" }, select: { id: true } }),
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
