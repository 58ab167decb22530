// What each role of a workspace may do. The one table the procedures enforce and
// docs/DASHBOARD.md documents; the dashboard only uses it to decide what to show. A workspace's
// custom roles (identity/roles/) are sets of these permissions; a member with one holds exactly
// its permissions (their `role` column is then `viewer`, the floor).
import type { Role } from "../../generated/prisma/enums";

export const ROLES = ["owner", "admin", "member", "billing", "viewer"] as const satisfies readonly Role[];

export const PERMISSIONS = {
  /** See the workspace, its models, usage, videos and members. */
  "workspace.view": ["owner", "admin", "member", "billing", "viewer"],
  /** Act in the workspace at all: leave it, remove oneself, run a /v1 operation from the dashboard, test a guardrail. Everyone but viewers. */
  "workspace.use": ["owner", "admin", "member", "billing"],
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
  /** Read the audit log. */
  "audit.view": ["owner", "admin"],
  /** Create, change and delete the workspace's custom roles. */
  "roles.manage": ["owner", "admin"],
  /** Set routes (virtual models). */
  "routes.manage": ["owner", "admin"],
  /** Define, attach and remove guardrails. */
  "guardrails.manage": ["owner", "admin"],
  /** Register, price and remove MCP servers; allow ad-hoc servers. */
  "mcp.manage": ["owner", "admin"],
  /** Register, change and remove webhooks. */
  "webhooks.manage": ["owner", "admin"],
  /** Single sign-on, its domains, and SCIM provisioning (tokens, groups' roles). Owners only; no custom role holds it. */
  "sso.manage": ["owner"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

/** What a custom role may hold: every permission but single sign-on's. */
export const CUSTOM_ROLE_PERMISSIONS = PERMISSION_NAMES.filter((p) => p !== "sso.manage");

/** A built-in role, or a member as the procedures see one: a role and, with a custom role, its permissions. */
export type PermissionHolder = Role | { role: Role; permissions?: readonly string[] | null };

/** Whether `who` holds `permission`: a custom role's permissions when it has one, its role's otherwise. */
export function can(who: PermissionHolder, permission: Permission): boolean {
  if (typeof who !== "string" && who.permissions) return who.permissions.includes(permission);
  return (PERMISSIONS[permission] as readonly Role[]).includes(typeof who === "string" ? who : who.role);
}

/** Every permission `who` holds. */
export function permissionsOf(who: PermissionHolder): Permission[] {
  return PERMISSION_NAMES.filter((p) => can(who, p));
}
