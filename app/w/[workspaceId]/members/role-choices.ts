// The roles the signed-in member may give (built-in and custom), as the role selects offer them.
// The same rule as the server's (identity/roles/role-rules.ts): an owner gives any role, anyone
// else only roles whose permissions are all their own. For what to show only; the procedures
// check again.
import type { RoleView } from "@/server/identity/roles/role-schemas";
import { permissionsOf, ROLES } from "@/server/identity/workspaces/permissions";

type Standing = { role: string; permissions: readonly string[] };
type Role = (typeof ROLES)[number];

/** A select's value: a built-in role's name, or `custom:` and a custom role's id. */
export type RoleChoice = { value: string; label: string };

export const choiceOf = (m: { role: Role; customRole: { id: string } | null }): string => (m.customRole ? `custom:${m.customRole.id}` : m.role);

/** The procedures' input for a select's value. */
export const roleInput = (value: string): { role: Role } | { customRole: string } =>
  value.startsWith("custom:") ? { customRole: value.slice("custom:".length) } : { role: value as Role };

/** Whether every permission is the actor's own (an owner holds them all). */
export const within = (actor: Standing, permissions: readonly string[]): boolean => actor.role === "owner" || permissions.every((p) => actor.permissions.includes(p));

/** The permissions a member holds: their custom role's, or their built-in role's. */
export function heldBy(m: { role: Role; customRole: { id: string } | null }, customRoles: readonly RoleView[]): readonly string[] {
  if (!m.customRole) return permissionsOf(m.role);
  // A custom role not (yet) listed counts as holding everything: no control is offered on it.
  return customRoles.find((r) => r.id === m.customRole!.id)?.permissions ?? ["sso.manage"];
}

export function roleChoices(actor: Standing, customRoles: readonly RoleView[]): RoleChoice[] {
  return [
    ...ROLES.filter((r) => (r !== "owner" || actor.role === "owner") && within(actor, permissionsOf(r))).map((r) => ({ value: r, label: r })),
    ...customRoles.filter((r) => within(actor, r.permissions)).map((r) => ({ value: `custom:${r.id}`, label: r.name })),
  ];
}
