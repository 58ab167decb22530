// Changing a member's role: a built-in one, or one of the workspace's custom roles (the member then
// holds exactly its permissions, and `role` is viewer, the floor). Needs `members.manage`, and
// the actor must hold every permission of both the member's current role and the new one
// (roles/role-rules.ts): an admin can neither make an owner nor touch one, and a custom role that
// manages members cannot hand out more than it has. Demoting the last owner is refused under the
// owner lock (see members.ts). Every change is audited as member.role_change with the role and
// the custom role's name.
import { z } from "zod";
import { recordAudit, type AuditActor } from "../../audit/record";
import { db, type Tx } from "../../infra/db/client";
import type { Role } from "../../generated/prisma/enums";
import { errors } from "../../kernel/errors";
import { findRole } from "../roles/custom-roles";
import { assertWithin, roleLabel, type Holder } from "../roles/role-rules";
import { ZRoleRef } from "../roles/role-schemas";
import { assertAnotherOwnerRemains, lockMembers, MEMBER_SELECT, memberView, ZMember, type Member } from "./members";
import { can, ROLES } from "./permissions";
import { withdrawMemberRights } from "./withdraw-member-rights";

export const ZChangeRoleInput = z
  .object({
    userId: z.string().min(1),
    role: z.enum(ROLES).optional(),
    /** A custom role of the workspace, by id or name. */
    customRole: ZRoleRef.optional(),
  })
  .refine((v) => Boolean(v.role) !== Boolean(v.customRole), { message: "Give either a built-in role or a custom role.", path: ["role"] });
export type ChangeRoleInput = z.input<typeof ZChangeRoleInput>;

export const ZChangedMember = ZMember;

type Standing = Holder & { customRoleName: string | null; customRoleId: string | null };

/** The standing a built-in role or a custom role (by id or name) gives, as the actor may grant it. */
export async function grantedStanding(tx: Tx, workspaceId: string, actor: Holder, wanted: { role?: Role; customRole?: string }): Promise<Standing> {
  const custom = wanted.customRole ? await findRole(tx, workspaceId, wanted.customRole, "customRole") : null;
  const next: Standing = custom
    ? { role: "viewer" as const, permissions: custom.permissions, customRoleName: custom.name, customRoleId: custom.id }
    : { role: wanted.role!, permissions: null, customRoleName: null, customRoleId: null };
  if (next.role === "owner" && actor.role !== "owner") throw errors.permissionDenied("Only owners can grant the owner role.");
  assertWithin(actor, next, `give the ${roleLabel(next)} role`);
  return next;
}

/** A null actor is the operator at the CLI, who acts as an owner. */
export async function changeMemberRole(workspaceId: string, actorUserId: string | null, input: ChangeRoleInput, actor?: AuditActor): Promise<Member> {
  const data = ZChangeRoleInput.parse(input);
  return db.$transaction(async (tx) => {
    const locked = await lockMembers(tx, workspaceId, actorUserId, data.userId);
    if (!can(locked.actor, "members.manage")) throw errors.permissionDenied(`The ${roleLabel(locked.actor)} role may not change roles.`);
    const before = locked.target;
    if (before.role === "owner" && locked.actor.role !== "owner") throw errors.permissionDenied("Only owners can change or take away the owner role.");
    assertWithin(locked.actor, before, "change this member's role");
    const next = await grantedStanding(tx, workspaceId, locked.actor, data);
    if (next.role !== "owner") assertAnotherOwnerRemains(locked, "be demoted");
    const row = await tx.membership.update({
      where: { workspaceId_userId: { workspaceId, userId: data.userId } },
      data: { role: next.role, customRoleId: next.customRoleId },
      select: MEMBER_SELECT,
    });
    // A role that may no longer hold keys or invite takes those away now (e.g. member -> billing).
    await withdrawMemberRights(tx, workspaceId, data.userId, next);
    const changes = {
      ...(before.role !== next.role ? { role: { from: before.role, to: next.role } } : {}),
      ...(before.customRoleId !== next.customRoleId ? { custom_role: { from: before.customRoleName ?? null, to: next.customRoleName } } : {}),
    };
    if (Object.keys(changes).length) {
      await recordAudit(tx, { workspaceId, actor, action: "member.role_change", target: { type: "member", id: data.userId }, changes });
    }
    return memberView(row);
  });
}
