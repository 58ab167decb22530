// Resolves a next-auth session to the user the procedures see, and (for the workspace the
// dashboard is showing) to a `user` principal, in one query. Read from the database on every
// request, so a removed or deactivated member, a demoted operator, or a user whose sessions were
// ended (their session version bumped: SCIM deactivation) loses access at once, whatever their
// session token says. A session not opened by single sign-on ends when the user's domain comes to
// require it.
import { db } from "../../infra/db/client";
import type { Principal } from "../principal";
import { isOperator } from "./operators";
import type { SessionUser } from "./session-user";
import { ssoRequiredFor } from "./sso-required";

export type ResolvedSession = { user: SessionUser | null; principal: Principal | null };

/** What the session token says beside the user id: its session version (`sv`) and how it was opened (`amr`: password, sso, github…). */
export type SessionClaims = { sv?: number; amr?: string };

const SIGNED_OUT: ResolvedSession = { user: null, principal: null };

export async function resolveSession(userId: string | undefined, workspaceId: string | null = null, claims: SessionClaims = {}): Promise<ResolvedSession> {
  if (!userId) return SIGNED_OUT;
  const row = await db.user.findUnique({
    where: { id: userId },
    select: {
      id: true,
      email: true,
      name: true,
      isOperator: true,
      sessionVersion: true,
      // At most one membership: the one in the workspace asked for (none when no workspace is).
      memberships: {
        where: { workspaceId: workspaceId ?? undefined, active: true },
        take: workspaceId ? 1 : 0,
        select: { role: true, customRole: { select: { id: true, name: true, permissions: true } } },
      },
    },
  });
  if (!row?.email) return SIGNED_OUT;
  // A token from before sessions had versions counts as version 0.
  if ((claims.sv ?? 0) !== row.sessionVersion) return SIGNED_OUT;
  if (claims.amr !== "sso" && (await ssoRequiredFor(row.email))) return SIGNED_OUT;
  const user: SessionUser = { id: row.id, email: row.email, name: row.name, isOperator: isOperator(row) };
  const membership = workspaceId ? row.memberships[0] : undefined;
  const principal: Principal | null = membership
    ? {
        kind: "user",
        workspaceId: workspaceId!,
        userId: row.id,
        keyId: null,
        role: membership.role,
        permissions: membership.customRole?.permissions ?? null,
        customRole: membership.customRole ? { id: membership.customRole.id, name: membership.customRole.name } : null,
      }
    : null;
  return { user, principal };
}
