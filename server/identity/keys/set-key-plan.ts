import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { errors } from "../../kernel/errors";
import { KEY_CREATOR, toKeyView, type KeyView } from "./key-view";

/** Puts a key of the workspace on a plan (or none: the workspace's defaults); every instance drops its cached key. */
export async function setKeyPlan(workspaceId: string, keyId: string, planId: string | null, actor?: AuditActor): Promise<KeyView> {
  return db.$transaction(async (tx) => {
    const key = await tx.apiKey.findFirst({ where: { id: keyId, workspaceId }, select: { id: true, models: true, planId: true } });
    if (!key) throw errors.notFound(`No API key with id ${keyId}`, "key_not_found");
    const plan = planId ? await tx.plan.findFirst({ where: { id: planId, workspaceId }, select: { models: true } }) : null;
    if (planId && !plan) throw errors.invalidRequest(`No plan ${planId} in this workspace.`, "planId", "plan_not_found");
    // As at creation: a key limited to some models goes only on a plan that allows them all.
    const outside = plan?.models.length ? (key.models ?? []).filter((m) => !plan.models.includes(m)) : [];
    if (outside.length) throw errors.invalidRequest(`The plan ${planId} does not allow ${outside.join(", ")}, which this key is limited to.`, "planId");
    const row = await tx.apiKey.update({ where: { id: keyId }, data: { planId }, include: KEY_CREATOR });
    await notify(tx, Channel.keyChanged, row.hash);
    const changes = diff({ plan: key.planId }, { plan: row.planId }, ["plan"]);
    await recordAudit(tx, { workspaceId, actor, action: "key.update", target: { type: "key", id: keyId }, changes });
    return toKeyView(row);
  });
}
