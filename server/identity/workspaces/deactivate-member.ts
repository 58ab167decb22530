// Taking a member's access away without forgetting them (SCIM `active:false`, or the IdP
// deleting them), and giving it back. Deactivation keeps the membership row (for a reactivation
// with the same role), revokes the keys the member created and withdraws their invitations, and
// bumps the user's session version: every dashboard session of theirs ends on its next request,
// since resolveSession compares the version to the session's `sv` claim. The last active owner
// cannot be deactivated: checked under a lock on the owner rows, as for removals (members.ts).
import { recordAudit, type AuditActor } from "../../audit/record";
import type { Tx } from "../../infra/db/client";
import type { Role } from "../../generated/prisma/enums";
import { errors, GatewayError } from "../../kernel/errors";
import { withdrawMemberRights } from "./withdraw-member-rights";

type Target = { id: string; userId: string; role: Role; active: boolean };

/** Locks the workspace's active owners and the member (FOR UPDATE), so two deactivations of the last two owners cannot both pass. */
async function lockTarget(tx: Tx, workspaceId: string, membershipId: string): Promise<{ target: Target; otherOwners: number }> {
  const owners = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT "id" FROM "Membership" WHERE "workspaceId" = ${workspaceId} AND "role" = 'owner' AND "active" ORDER BY "id" FOR UPDATE`;
  const rows = await tx.$queryRaw<Target[]>`
    SELECT "id", "userId", "role"::text AS "role", "active" FROM "Membership"
    WHERE "workspaceId" = ${workspaceId} AND "id" = ${membershipId} FOR UPDATE`;
  const target = rows[0];
  if (!target) throw errors.notFound("This member is not in the workspace.", "member_not_found", "id");
  return { target, otherOwners: owners.filter((o) => o.id !== membershipId).length };
}

const lastOwner = (action: string) =>
  new GatewayError({ status: 409, code: "last_owner", message: `The last owner of a workspace cannot ${action}. Make another member an owner first.`, param: "id" });

async function deactivateLocked(tx: Tx, workspaceId: string, target: Target, actor: AuditActor): Promise<void> {
  await tx.membership.update({ where: { id: target.id }, data: { active: false, deactivatedAt: new Date() } });
  await withdrawMemberRights(tx, workspaceId, target.userId, null);
  await tx.user.update({ where: { id: target.userId }, data: { sessionVersion: { increment: 1 } } });
  await recordAudit(tx, {
    workspaceId,
    actor,
    action: "member.deactivate",
    target: { type: "member", id: target.userId },
    changes: { active: { from: true, to: false } },
  });
}

/** Deactivates the member (nothing to do when they already are). Runs in the caller's transaction. */
export async function deactivateMember(tx: Tx, workspaceId: string, membershipId: string, actor: AuditActor): Promise<void> {
  const { target, otherOwners } = await lockTarget(tx, workspaceId, membershipId);
  if (!target.active) return;
  if (target.role === "owner" && otherOwners === 0) throw lastOwner("be deactivated");
  await deactivateLocked(tx, workspaceId, target, actor);
}

/** Deactivates the member (ending their sessions) and then removes the membership. */
export async function deactivateAndRemoveMember(tx: Tx, workspaceId: string, membershipId: string, actor: AuditActor): Promise<void> {
  const { target, otherOwners } = await lockTarget(tx, workspaceId, membershipId);
  if (target.active && target.role === "owner" && otherOwners === 0) throw lastOwner("be removed");
  if (target.active) await deactivateLocked(tx, workspaceId, target, actor);
  await tx.membership.delete({ where: { id: target.id } });
  await recordAudit(tx, {
    workspaceId,
    actor,
    action: "member.remove",
    target: { type: "member", id: target.userId },
    changes: { role: { from: target.role, to: null } },
  });
}

/** Gives a deactivated member their access back, with the role they had. */
export async function reactivateMember(tx: Tx, workspaceId: string, membershipId: string, actor: AuditActor): Promise<void> {
  const { target } = await lockTarget(tx, workspaceId, membershipId);
  if (target.active) return;
  await tx.membership.update({ where: { id: target.id }, data: { active: true, deactivatedAt: null } });
  await recordAudit(tx, {
    workspaceId,
    actor,
    action: "member.reactivate",
    target: { type: "member", id: target.userId },
    changes: { active: { from: false, to: true } },
  });
}
