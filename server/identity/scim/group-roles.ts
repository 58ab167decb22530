// A provisioned member's role follows their SCIM groups. Each group may be mapped to a built-in
// role (never owner) or to one of the workspace's custom roles; a member gets:
//   - the most privileged built-in role of their mapped groups (admin > member > billing > viewer);
//   - else, when only custom roles are mapped, the custom role with the most permissions (the
//     oldest wins a tie);
//   - else (no mapped group) the single sign-on connection's default role, or viewer without one.
// Owners are never changed by SCIM. A change is written with its audit event (member.role_change)
// in the caller's transaction, and takes away the keys and invitations the new role may not hold.
import type { AuditActor } from "../../audit/actor";
import { recordAudit, type AuditChanges } from "../../audit/record";
import type { Tx } from "../../infra/db/client";
import type { Role } from "../../generated/prisma/enums";
import { withdrawMemberRights } from "../workspaces/withdraw-member-rights";

/** Built-in roles a group may give, most privileged first. */
export const GROUP_ROLES = ["admin", "member", "billing", "viewer"] as const satisfies readonly Role[];

type Assignment = { role: Role; customRoleId: string | null };
type Mapping = { role: Role | null; customRole: { id: string; permissions: string[]; createdAt: Date } | null };

/** The role a member of these groups gets, or null when none of them is mapped. */
export function roleFromGroups(groups: readonly Mapping[]): Assignment | null {
  const builtIn = GROUP_ROLES.find((r) => groups.some((g) => g.role === r));
  if (builtIn) return { role: builtIn, customRoleId: null };
  const custom = groups
    .flatMap((g) => (g.customRole ? [g.customRole] : []))
    .sort((a, b) => b.permissions.length - a.permissions.length || a.createdAt.getTime() - b.createdAt.getTime())[0];
  return custom ? { role: "viewer", customRoleId: custom.id } : null;
}

/** The role of a provisioned member in no mapped group: the connection's default, or viewer. */
export async function defaultAssignment(tx: Tx, workspaceId: string): Promise<Assignment> {
  const conn = await tx.ssoConnection.findUnique({ where: { workspaceId }, select: { defaultRole: true, defaultCustomRoleId: true } });
  if (!conn) return { role: "viewer", customRoleId: null };
  if (conn.defaultCustomRoleId) return { role: "viewer", customRoleId: conn.defaultCustomRoleId };
  return { role: conn.defaultRole === "owner" ? "viewer" : conn.defaultRole, customRoleId: null };
}

/** Recomputes and writes the role of each of these memberships (owners and vanished ones are skipped). */
export async function syncGroupRoles(tx: Tx, workspaceId: string, membershipIds: readonly string[], actor: AuditActor): Promise<void> {
  if (!membershipIds.length) return;
  const members = await tx.membership.findMany({
    where: { workspaceId, id: { in: [...new Set(membershipIds)] }, role: { not: "owner" } },
    orderBy: { id: "asc" },
    select: {
      id: true,
      userId: true,
      role: true,
      customRoleId: true,
      scimGroups: { select: { group: { select: { role: true, customRole: { select: { id: true, permissions: true, createdAt: true } } } } } },
    },
  });
  let fallback: Assignment | undefined;
  for (const m of members) {
    const next = roleFromGroups(m.scimGroups.map((s) => s.group)) ?? (fallback ??= await defaultAssignment(tx, workspaceId));
    if (next.role === m.role && next.customRoleId === m.customRoleId) continue;
    const updated = await tx.membership.update({
      where: { id: m.id },
      data: { role: next.role, customRoleId: next.customRoleId },
      select: { customRole: { select: { name: true, permissions: true } } },
    });
    await withdrawMemberRights(tx, workspaceId, m.userId, { role: next.role, permissions: updated.customRole?.permissions ?? null });
    const before = m.customRoleId ? await tx.customRole.findUnique({ where: { id: m.customRoleId }, select: { name: true } }) : null;
    const changes = roleChanges({ role: m.role, customRole: before?.name ?? null }, { role: next.role, customRole: updated.customRole?.name ?? null });
    await recordAudit(tx, { workspaceId, actor, action: "member.role_change", target: { type: "member", id: m.userId }, changes });
  }
}

type Held = { role: string | null; customRole: string | null };

/** The audit changes between two role assignments (a custom role by its name). */
export function roleChanges(from: Held, to: Held): AuditChanges {
  return {
    ...(from.role !== to.role ? { role: { from: from.role, to: to.role } } : {}),
    ...(from.customRole !== to.customRole ? { custom_role: { from: from.customRole, to: to.customRole } } : {}),
  };
}

/** The keys and invitations of a member whose new role may no longer hold them (as withdrawMemberRights, for custom roles too). */
