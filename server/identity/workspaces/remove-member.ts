// Removing a member, or leaving. Anyone who may act in the workspace may remove themselves
// (leave), whatever their role; removing someone else needs `members.manage` and every
// permission the member holds (admins cannot remove owners, a custom role no one above it). The
// last owner can neither be removed nor leave: checked under the owner lock in the same
// transaction as the delete, so two concurrent removals cannot both pass. The keys the member
// created are revoked and their pending invitations withdrawn in the same transaction.
import { z } from "zod";
import { recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import { assertWithin, roleLabel } from "../roles/role-rules";
import { assertAnotherOwnerRemains, lockMembers } from "./members";
import { can } from "./permissions";
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
      if (!can(locked.actor, "members.manage")) throw errors.permissionDenied(`The ${roleLabel(locked.actor)} role may not remove members.`);
      if (locked.target.role === "owner" && locked.actor.role !== "owner") throw errors.permissionDenied("Only owners can remove an owner.");
      assertWithin(locked.actor, locked.target, "remove this member");
    }
    assertAnotherOwnerRemains(locked, leaving ? "leave" : "be removed");
    await tx.membership.delete({ where: { workspaceId_userId: { workspaceId, userId } } });
    await withdrawMemberRights(tx, workspaceId, userId, null);
    const changes = {
      role: { from: locked.target.role, to: null },
      ...(locked.target.customRoleName ? { custom_role: { from: locked.target.customRoleName, to: null } } : {}),
      left: { from: null, to: leaving },
    };
    await recordAudit(tx, { workspaceId, actor, action: "member.remove", target: { type: "member", id: userId }, changes });
    return { userId, left: leaving };
  });
}
