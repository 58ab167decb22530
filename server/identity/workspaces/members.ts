// The members of a workspace, and the lock every change to a member goes through. Only owners
// manage owners, and a workspace always keeps at least one active owner: without one, nobody
// could manage its members again.
import { z } from "zod";
import { db, type Tx } from "../../infra/db/client";
import { errors, GatewayError } from "../../kernel/errors";
import type { Role } from "../../generated/prisma/enums";
import type { Holder } from "../roles/role-rules";
import { ZCustomRoleRef } from "./my-workspaces";
import { ROLES } from "./permissions";

export const ZMember = z.object({
  userId: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  role: z.enum(ROLES),
  /** The member's custom role; their permissions are its own (`role` is then viewer). */
  customRole: ZCustomRoleRef.nullable(),
  /** false: deactivated by SCIM, with no access until reactivated. */
  active: z.boolean(),
  joinedAt: z.string(),
});
export type Member = z.infer<typeof ZMember>;

export const MEMBER_SELECT = {
  role: true,
  active: true,
  createdAt: true,
  customRole: { select: { id: true, name: true } },
  user: { select: { id: true, name: true, email: true } },
} as const;

type MemberRow = { role: Role; active: boolean; createdAt: Date; customRole: { id: string; name: string } | null; user: { id: string; name: string | null; email: string | null } };

export const memberView = (r: MemberRow): Member => ({
  userId: r.user.id,
  name: r.user.name,
  email: r.user.email,
  role: r.role,
  customRole: r.customRole,
  active: r.active,
  joinedAt: r.createdAt.toISOString(),
});

export async function listMembers(workspaceId: string): Promise<Member[]> {
  const rows = await db.membership.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" }, select: MEMBER_SELECT });
  return rows.map(memberView);
}

/** Who acts when the gateway's operator changes a workspace from the CLI: as an owner would. */
export const OPERATOR: Holder = { role: "owner", permissions: null };

export type LockedMember = Holder & { userId: string; customRoleId: string | null };
export type LockedMembers = { owners: string[]; actor: Holder; target: LockedMember };

type LockedRow = { userId: string; role: Role; active: boolean; customRoleId: string | null; customRoleName: string | null; permissions: string[] | null };

/**
 * Locks the workspace's active owner memberships (FOR UPDATE) and reads the actor's and the
 * target's current standing (role, custom role and its permissions) inside the transaction. Two
 * concurrent removals or demotions of different owners both lock the same owner rows, so the
 * second one waits and then sees the first one's result: they cannot both pass the "another owner
 * remains" check. A null actor is the operator at the CLI.
 */
export async function lockMembers(tx: Tx, workspaceId: string, actorUserId: string | null, targetUserId: string): Promise<LockedMembers> {
  const ownerRows = await tx.$queryRaw<Array<{ userId: string }>>`
    SELECT "userId" FROM "Membership" WHERE "workspaceId" = ${workspaceId} AND "role" = 'owner' AND "active" ORDER BY "userId" FOR UPDATE`;
  const rows = await tx.$queryRaw<LockedRow[]>`
    SELECT m."userId", m."role"::text AS "role", m."active", m."customRoleId", r."name" AS "customRoleName", r."permissions"
    FROM "Membership" m LEFT JOIN "CustomRole" r ON r."id" = m."customRoleId"
    WHERE m."workspaceId" = ${workspaceId} AND m."userId" IN (${actorUserId ?? targetUserId}, ${targetUserId}) FOR UPDATE OF m`;
  const standing = (r: LockedRow): LockedMember => ({ userId: r.userId, role: r.role, customRoleId: r.customRoleId, customRoleName: r.customRoleName, permissions: r.permissions });
  // The actor's standing is re-read here: a member demoted a moment ago acts with their new role.
  const actorRow = actorUserId === null ? null : rows.find((r) => r.userId === actorUserId && r.active);
  if (actorRow === undefined) throw errors.notFound("No such workspace, or you are not a member of it.", "workspace_not_found");
  const target = rows.find((r) => r.userId === targetUserId);
  if (!target) throw errors.notFound("This user is not a member of the workspace.", "member_not_found", "userId");
  return { owners: ownerRows.map((r) => r.userId), actor: actorRow ? standing(actorRow) : OPERATOR, target: standing(target) };
}

/** Refuses a change that would leave the workspace without an active owner. */
export function assertAnotherOwnerRemains(locked: LockedMembers, action: string): void {
  if (locked.target.role !== "owner") return;
  if (locked.owners.some((id) => id !== locked.target.userId)) return;
  throw new GatewayError({
    status: 409,
    code: "last_owner",
    message: `The last owner of a workspace cannot ${action}. Make another member an owner first.`,
    param: "userId",
  });
}
