import { X402_WORKSPACE_ID } from "../../kernel/x402-workspace";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import { toKeyView, type KeyView } from "../keys/key-view";
import { formatMoney } from "../../kernel/money";
import { toWorkspaceView, type WorkspaceView } from "./workspace-view";

export type WorkspaceDetail = {
  workspace: WorkspaceView & { creditsTotal: string; usageTotal: string; members: number };
  keys: KeyView[];
};

export async function getWorkspace(id: string): Promise<WorkspaceDetail> {
  const row = await db.workspace.findUnique({
    where: { id },
    include: { apiKeys: { orderBy: { createdAt: "desc" } }, _count: { select: { memberships: true } } },
  });
  if (!row) throw errors.notFound(`No workspace with id ${id}`, "workspace_not_found");
  const [credits, usage] = await Promise.all([
    db.creditLedgerEntry.aggregate({ where: { workspaceId: id }, _sum: { amount: true } }),
    db.usageEvent.aggregate({ where: { workspaceId: id }, _sum: { cost: true } }),
  ]);
  return {
    workspace: {
      ...toWorkspaceView(row),
      creditsTotal: formatMoney(credits._sum.amount ?? 0),
      usageTotal: formatMoney(usage._sum.cost ?? 0),
      members: row._count.memberships,
    },
    keys: row.apiKeys.map(toKeyView),
  };
}

export async function listWorkspaces(): Promise<WorkspaceView[]> {
  const rows = await db.workspace.findMany({ where: { id: { not: X402_WORKSPACE_ID } }, orderBy: { createdAt: "asc" } });
  return rows.map(toWorkspaceView);
}
