// Resolves a next-auth session to the user the procedures see, and (for the workspace the
// dashboard is showing) to a `user` principal. Read from the database on every request, so a
// removed member or a demoted operator loses access at once, whatever their session token says.
import { db } from "../db/client";
import type { Principal } from "./principal";
import { isOperator } from "./operators";
import type { SessionUser } from "./session-user";

export async function loadSessionUser(userId: string | undefined): Promise<SessionUser | null> {
  if (!userId) return null;
  const row = await db.user.findUnique({ where: { id: userId }, select: { id: true, email: true, name: true, isOperator: true } });
  if (!row?.email) return null;
  return { id: row.id, email: row.email, name: row.name, isOperator: isOperator(row) };
}

/** The user's principal in a workspace, or null when they are not a member of it. */
export async function memberPrincipal(user: SessionUser, workspaceId: string | null): Promise<Principal | null> {
  if (!workspaceId) return null;
  const membership = await db.membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId: user.id } },
    select: { role: true },
  });
  if (!membership) return null;
  return { kind: "user", workspaceId, userId: user.id, keyId: null, role: membership.role };
}
