// Nobody hands out more than they hold. An actor may create, edit, delete or give a role (built-in
// or custom), or change or remove a member, only when every permission involved is one of their
// own; owners may do anything (they hold every permission, sso.manage too). For built-in roles this
// is the old rule: an admin lacks sso.manage, so cannot make or touch an owner.
import type { Role } from "../../generated/prisma/enums";
import { errors } from "../../kernel/errors";
import { can, permissionsOf, type Permission, type PermissionHolder } from "../workspaces/permissions";

/** A member's standing: their role, and with a custom role its permissions and name. */
export type Holder = { role: Role; permissions: readonly string[] | null; customRoleName?: string | null };

/** How a message names the holder's role. */
export const roleLabel = (h: Holder) => h.customRoleName ?? h.role;

/** The permissions of `what` that `actor` lacks (none for an owner). */
export function beyond(actor: PermissionHolder, what: PermissionHolder | readonly string[]): string[] {
  if ((typeof actor === "string" ? actor : actor.role) === "owner" && !(typeof actor !== "string" && actor.permissions)) return [];
  const wanted: readonly string[] = Array.isArray(what) ? what : permissionsOf(what as PermissionHolder);
  return wanted.filter((p) => !can(actor, p as Permission));
}

/** Throws 403 when `what` holds a permission `actor` does not. */
export function assertWithin(actor: PermissionHolder, what: PermissionHolder | readonly string[], doing: string): void {
  const missing = beyond(actor, what);
  if (missing.length) throw errors.permissionDenied(`You cannot ${doing}: it holds permissions you do not have (${missing.join(", ")}).`);
}
