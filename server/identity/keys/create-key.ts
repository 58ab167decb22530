import { z } from "zod";
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import type { Tx } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import { newId } from "../../kernel/ids";
import { DECIMAL_STRING, formatMoney, money } from "../../kernel/money";
import { ZCreditAmount } from "../../kernel/money";
import { generateKeySecret } from "./key-secret";
import { ZKeyRestrictions } from "./permissions";
import { KEY_CREATOR, toKeyView, type KeyView } from "./key-view";

/** A key's spend limit in USD: an exact decimal string above zero, like a credit amount. */
export const ZSpendLimit = ZCreditAmount.refine((v) => !DECIMAL_STRING.test(v) || money(v).gt(0), "must be greater than zero");

export const ZCreateKeyInput = z.object({
  workspaceId: z.string().min(1),
  name: z.string().trim().min(1).max(100).default("default"),
  expiresAt: z.coerce.date().optional(),
  spendLimit: ZSpendLimit.optional(),
  /** A plan of the workspace whose limits and caps apply to the key. */
  planId: z.string().min(1).optional(),
  createdById: z.string().optional(),
  /** Absent: every operation group, every model and every tool (permissions.ts). */
  ...ZKeyRestrictions.shape,
});
export type CreateKeyInput = z.input<typeof ZCreateKeyInput>;

/** Creates a key in the caller's transaction; the secret is returned here and never again. */
export async function createKey(tx: Tx, input: CreateKeyInput, actor?: AuditActor): Promise<{ key: KeyView; secret: string }> {
  const data = ZCreateKeyInput.parse(input);
  if (data.expiresAt && data.expiresAt.getTime() <= Date.now()) {
    throw errors.invalidRequest("expiresAt must be in the future", "expiresAt");
  }
  const workspace = await tx.workspace.findUnique({ where: { id: data.workspaceId }, select: { id: true } });
  if (!workspace) throw errors.notFound(`No workspace with id ${data.workspaceId}`, "workspace_not_found");
  const plan = data.planId ? await tx.plan.findFirst({ where: { id: data.planId, workspaceId: data.workspaceId }, select: { models: true } }) : null;
  if (data.planId && !plan) throw errors.invalidRequest(`No plan ${data.planId} in this workspace.`, "planId", "plan_not_found");
  // A key's models narrow its plan's: one its plan does not allow could never be called.
  const outside = plan?.models.length ? data.models?.filter((m) => !plan.models.includes(m)) : [];
  if (outside?.length) throw errors.invalidRequest(`The plan ${data.planId} does not allow ${outside.join(", ")}.`, "models");
  const { secret, hash, prefix } = generateKeySecret();
  const row = await tx.apiKey.create({
    data: {
      id: newId("key"),
      workspaceId: data.workspaceId,
      name: data.name,
      hash,
      prefix,
      createdById: data.createdById ?? null,
      expiresAt: data.expiresAt ?? null,
      spendLimit: data.spendLimit === undefined ? null : formatMoney(data.spendLimit),
      planId: data.planId ?? null,
      permissions: data.permissions ?? [],
      models: data.models ?? [],
      tools: data.tools ?? [],
    },
    include: KEY_CREATOR,
  });
  const created = { name: row.name, plan: row.planId, spend_limit: row.spendLimit, expires_at: row.expiresAt, permissions: row.permissions, models: row.models, tools: row.tools };
  const changes = diff(null, created, ["name", "plan", "spend_limit", "expires_at", "permissions", "models", "tools"]);
  await recordAudit(tx, { workspaceId: row.workspaceId, actor, action: "key.create", target: { type: "key", id: row.id }, changes });
  return { key: toKeyView(row), secret };
}
