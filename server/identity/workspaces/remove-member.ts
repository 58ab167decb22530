// Removing a member, or leaving. Anyone may remove themselves (leave), whatever their role;
// removing someone else needs `members.manage` and the right to manage their role (admins cannot
// remove owners). The last owner can neither be removed nor leave: checked under the owner lock
// in the same transaction as the delete, so two concurrent removals cannot both pass. The keys
// the member created are revoked and their pending invitations withdrawn in the same transaction.
import { z } from "zod";
import { recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import { assertAnotherOwnerRemains, lockMembers } from "./members";
import { can, canManageRole } from "./permissions";
import { withdrawMemberRights } from "./withdraw-member-rights";

export const ZRemoveMemberInput = z.object({ userId: z.string().min(1) });
export type RemoveMemberInput = z.input<typeof ZRemoveMemberInput>;

export const ZRemovedMember = z.object({ userId: z.string(), left: z.boolean() });
export type RemovedMember = z.infer<typeof ZRemovedMember>;

export async function removeMember(workspaceId: string, actorUserId: string, input: RemoveMemberInput, actor?: AuditActor): Promise<RemovedMember> {
  const { userId } = ZRemoveMemberInput.parse(input);
  const leaving = userId === actorUserId;
  return db.$transaction(async (tx) => {
    const locked = await lockMembers(tx, workspaceId, actorUserId, userId);
    if (!leaving) {
      if (!can(locked.actorRole, "members.manage")) {
        throw errors.permissionDenied(`The ${locked.actorRole} role may not remove members.`);
      }
      if (!canManageRole(locked.actorRole, locked.target.role)) {
        throw errors.permissionDenied("Only owners can remove an owner.");
      }
    }
    assertAnotherOwnerRemains(locked, leaving ? "leave" : "be removed");
    await tx.membership.delete({ where: { workspaceId_userId: { workspaceId, userId } } });
    await withdrawMemberRights(tx, workspaceId, userId, null);
    const changes = { role: { from: locked.target.role, to: null }, left: { from: null, to: leaving } };
    await recordAudit(tx, { workspaceId, actor, action: "member.remove", target: { type: "member", id: userId }, changes });
    return { userId, left: leaving };
  });
}
