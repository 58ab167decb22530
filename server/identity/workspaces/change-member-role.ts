// Changing a member's role. Needs `members.manage`, and the actor must be allowed to manage both
// the member's current role and the new one: an admin can neither promote anyone to owner nor
// touch an owner. Demoting the last owner is refused under the owner lock (see members.ts).
import { z } from "zod";
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import { assertAnotherOwnerRemains, lockMembers, ZMember, type Member } from "./members";
import { can, canManageRole, ROLES } from "./permissions";
import { withdrawMemberRights } from "./withdraw-member-rights";

export const ZChangeRoleInput = z.object({ userId: z.string().min(1), role: z.enum(ROLES) });
export type ChangeRoleInput = z.input<typeof ZChangeRoleInput>;

export const ZChangedMember = ZMember;

export async function changeMemberRole(workspaceId: string, actorUserId: string, input: ChangeRoleInput, actor?: AuditActor): Promise<Member> {
  const data = ZChangeRoleInput.parse(input);
  return db.$transaction(async (tx) => {
    const locked = await lockMembers(tx, workspaceId, actorUserId, data.userId);
    if (!can(locked.actorRole, "members.manage")) {
      throw errors.permissionDenied(`The ${locked.actorRole} role may not change roles.`);
    }
    if (!canManageRole(locked.actorRole, locked.target.role) || !canManageRole(locked.actorRole, data.role)) {
      throw errors.permissionDenied("Only owners can grant, change or take away the owner role.");
    }
    if (data.role !== "owner") assertAnotherOwnerRemains(locked, "be demoted");
    const row = await tx.membership.update({
      where: { workspaceId_userId: { workspaceId, userId: data.userId } },
      data: { role: data.role },
      select: { role: true, createdAt: true, user: { select: { id: true, name: true, email: true } } },
    });
    // A role that may no longer hold keys or invite takes those away now (e.g. member -> billing).
    await withdrawMemberRights(tx, workspaceId, data.userId, data.role);
    const changes = diff({ role: locked.target.role }, { role: row.role }, ["role"]);
    await recordAudit(tx, { workspaceId, actor, action: "member.role_change", target: { type: "member", id: data.userId }, changes });
    return { userId: row.user.id, name: row.user.name, email: row.user.email, role: row.role, joinedAt: row.createdAt.toISOString() };
  });
}
