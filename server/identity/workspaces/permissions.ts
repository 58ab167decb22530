// What each role of a workspace may do. The one table the procedures enforce and
// docs/DASHBOARD.md documents; the dashboard only uses it to decide what to show.
import type { Role } from "../../generated/prisma/enums";

export const ROLES = ["owner", "admin", "member", "billing"] as const satisfies readonly Role[];

export const PERMISSIONS = {
  /** See the workspace, its models, usage, videos and members. */
  "workspace.view": ["owner", "admin", "member", "billing"],
  /** Rename the workspace. */
  "workspace.rename": ["owner", "admin"],
  /** Spend credits from the dashboard: playground chats, video jobs. */
  "models.call": ["owner", "admin", "member"],
  /** Create API keys and revoke the keys one created. */
  "keys.create": ["owner", "admin", "member"],
  /** Revoke any key of the workspace. */
  "keys.manage": ["owner", "admin"],
  /** See the balance and the ledger of credits and charges. */
  "billing.view": ["owner", "admin", "billing"],
  /** Create, change and delete plans; revoke sessions; trust identity providers. */
  "plans.manage": ["owner", "admin"],
  /** Read the request and answer bodies the request log captured; turn capture on or off, for the workspace or a key. */
  "logs.bodies": ["owner", "admin"],
  /** Change the response cache's settings (the workspace's, a key's, a plan's) and clear its entries. */
  "cache.manage": ["owner", "admin"],
  /** Invite people, change roles, remove members (admins cannot touch owners). */
  "members.manage": ["owner", "admin"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function can(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

/** Roles a member with `role` may grant or take away: only owners manage owners. */
export function canManageRole(role: Role, target: Role): boolean {
  return role === "owner" || (role === "admin" && target !== "owner");
}
