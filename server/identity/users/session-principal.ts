// Resolves a next-auth session to the user the procedures see, and (for the workspace the
// dashboard is showing) to a `user` principal, in one query. Read from the database on every
// request, so a removed member or a demoted operator loses access at once, whatever their
// session token says.
import { db } from "../../infra/db/client";
import type { Principal } from "../principal";
import { isOperator } from "./operators";
import type { SessionUser } from "./session-user";

export type ResolvedSession = { user: SessionUser | null; principal: Principal | null };

export async function resolveSession(userId: string | undefined, workspaceId: string | null = null): Promise<ResolvedSession> {
  if (!userId) return { user: null, principal: null };
  const row = await db.user.findUnique({
    where: { id: userId },
    select: {
      id: true,
      email: true,
      name: true,
      isOperator: true,
      // At most one membership: the one in the workspace asked for (none when no workspace is).
      memberships: { where: { workspaceId: workspaceId ?? undefined }, take: workspaceId ? 1 : 0, select: { role: true } },
    },
  });
  if (!row?.email) return { user: null, principal: null };
  const user: SessionUser = { id: row.id, email: row.email, name: row.name, isOperator: isOperator(row) };
  const membership = workspaceId ? row.memberships[0] : undefined;
  const principal: Principal | null = membership ? { kind: "user", workspaceId: workspaceId!, userId: row.id, keyId: null, role: membership.role } : null;
  return { user, principal };
}
