// Opening a workspace: its row and owner (identity), its first credits (the ledger), and a first
// API key if asked, in one transaction. Above both identity and the ledger, so neither imports the other.
import { z } from "zod";
import { recordAudit, type AuditActor } from "../audit/record";
import { db, type Tx } from "../infra/db/client";
import { env } from "../infra/env";
import { newId } from "../kernel/ids";
import { createKey } from "../identity/keys/create-key";
import type { KeyView } from "../identity/keys/key-view";
import { addCreditsTx } from "../ledger/add-credits";
import { money, ZCreditAmount } from "../kernel/money";
import { toWorkspaceView, type WorkspaceView } from "../identity/workspaces/workspace-view";

export const ZCreateWorkspaceInput = z.object({
  name: z.string().trim().min(1, "must not be empty").max(100),
  credits: ZCreditAmount.default("0"),
  ownerUserId: z.string().optional(),
  /** Grant the owner's sign-up credits (SIGNUP_CREDITS) to this workspace if they have not had them yet. */
  signupCredits: z.boolean().default(false),
  /** Also create a first API key and return its secret. */
  withKey: z.boolean().default(false),
  keyName: z.string().trim().min(1).max(100).default("default"),
});
export type CreateWorkspaceInput = z.input<typeof ZCreateWorkspaceInput>;
export type CreatedWorkspace = { workspace: WorkspaceView; apiKey?: { key: KeyView; secret: string } };

export async function createWorkspaceTx(tx: Tx, input: CreateWorkspaceInput, actor?: AuditActor): Promise<CreatedWorkspace> {
  const data = ZCreateWorkspaceInput.parse(input);
  const row = await tx.workspace.create({ data: { id: newId("ws"), name: data.name } });
  if (data.ownerUserId) {
    await tx.membership.create({ data: { workspaceId: row.id, userId: data.ownerUserId, role: "owner" } });
  }
  const opened = { name: { from: null, to: row.name }, owner: { from: null, to: data.ownerUserId ?? null } };
  await recordAudit(tx, { workspaceId: row.id, actor, action: "workspace.create", target: { type: "workspace", id: row.id }, changes: opened });
  let workspace = money(data.credits).gt(0)
    ? await addCreditsTx(tx, { workspaceId: row.id, amount: data.credits, note: "initial credits", createdById: data.ownerUserId }, actor)
    : toWorkspaceView(row);
  if (data.signupCredits && data.ownerUserId && money(env.SIGNUP_CREDITS).gt(0)) {
    // Once per user, whichever of their workspaces comes first (two at once: one wins the update).
    const first = await tx.user.updateMany({ where: { id: data.ownerUserId, signupCreditsAt: null }, data: { signupCreditsAt: new Date() } });
    if (first.count === 1) workspace = await addCreditsTx(tx, { workspaceId: row.id, amount: env.SIGNUP_CREDITS, note: "sign-up credits" });
  }
  if (!data.withKey) return { workspace };
  const apiKey = await createKey(tx, { workspaceId: row.id, name: data.keyName, createdById: data.ownerUserId });
  return { workspace, apiKey };
}

/** One transaction: a failure anywhere leaves no half-made workspace behind. */
export function createWorkspace(input: CreateWorkspaceInput, actor?: AuditActor): Promise<CreatedWorkspace> {
  return db.$transaction((tx) => createWorkspaceTx(tx, input, actor));
}
