// The members of a workspace, and the lock every change to an owner goes through. Only owners
// manage owners, and a workspace always keeps at least one owner: without one, nobody could
// manage its members again.
import { z } from "zod";
import { db, type Tx } from "../../infra/db/client";
import { errors, GatewayError } from "../../kernel/errors";
import type { Role } from "../../generated/prisma/enums";
import { ROLES } from "./permissions";

export const ZMember = z.object({
  userId: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  role: z.enum(ROLES),
  joinedAt: z.string(),
});
export type Member = z.infer<typeof ZMember>;

export async function listMembers(workspaceId: string): Promise<Member[]> {
  const rows = await db.membership.findMany({
    where: { workspaceId },
    orderBy: { createdAt: "asc" },
    select: { role: true, createdAt: true, user: { select: { id: true, name: true, email: true } } },
  });
  return rows.map((r) => ({ userId: r.user.id, name: r.user.name, email: r.user.email, role: r.role, joinedAt: r.createdAt.toISOString() }));
}

export type LockedMembers = { owners: string[]; actorRole: Role; target: { userId: string; role: Role } };

/**
 * Locks the workspace's owner memberships (FOR UPDATE) and reads the actor's and the target's
 * current roles inside the transaction. Two concurrent removals or demotions of different owners
 * both lock the same owner rows, so the second one waits and then sees the first one's result:
 * they cannot both pass the "another owner remains" check.
 */
export async function lockMembers(tx: Tx, workspaceId: string, actorUserId: string, targetUserId: string): Promise<LockedMembers> {
  const ownerRows = await tx.$queryRaw<Array<{ userId: string }>>`
    SELECT "userId" FROM "Membership" WHERE "workspaceId" = ${workspaceId} AND "role" = 'owner' ORDER BY "userId" FOR UPDATE`;
  const rows = await tx.$queryRaw<Array<{ userId: string; role: Role }>>`
    SELECT "userId", "role"::text AS "role" FROM "Membership"
    WHERE "workspaceId" = ${workspaceId} AND "userId" IN (${actorUserId}, ${targetUserId}) FOR UPDATE`;
  const actor = rows.find((r) => r.userId === actorUserId);
  // The actor's role is re-read here: a member demoted a moment ago acts with their new role.
  if (!actor) throw errors.notFound("No such workspace, or you are not a member of it.", "workspace_not_found");
  const target = rows.find((r) => r.userId === targetUserId);
  if (!target) throw errors.notFound("This user is not a member of the workspace.", "member_not_found", "userId");
  return { owners: ownerRows.map((r) => r.userId), actorRole: actor.role, target };
}

/** Refuses a change that would leave the workspace without an owner. */
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
