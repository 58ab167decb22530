// What a workspace's custom role is made of, checked the same way for the dashboard, the CLI and
// the procedures: a name of its own (never a built-in role's, so "admin" always means the built-in
// one), an optional description, and permissions a custom role may hold (never sso.manage).
import { z } from "zod";
import { CUSTOM_ROLE_PERMISSIONS, ROLES, type Permission } from "../workspaces/permissions";

const BUILT_IN = new Set<string>(ROLES);

export const ZRoleName = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(50)
  .regex(/^[\p{L}\p{N} _.-]+$/u, "may hold letters, digits, spaces, '_', '.' and '-' only")
  .refine((n) => !BUILT_IN.has(n.toLowerCase()), { message: "is a built-in role's name; choose another" });

export const ZRolePermissions = z
  .array(z.enum(CUSTOM_ROLE_PERMISSIONS as [Permission, ...Permission[]]))
  .min(1, "must name at least one permission")
  .max(CUSTOM_ROLE_PERMISSIONS.length * 2)
  // Every member sees the workspace they are in: a role holds workspace.view whatever it names.
  .transform((ps) => CUSTOM_ROLE_PERMISSIONS.filter((p) => p === "workspace.view" || ps.includes(p)));

const ZDescription = z.string().trim().max(300).nullish().transform((d) => d || null);

/** A custom role as its id (`role_…`) or its name. */
export const ZRoleRef = z.string().trim().min(1).max(100);

export const ZCreateRoleInput = z.object({ name: ZRoleName, description: ZDescription, permissions: ZRolePermissions });
export type CreateRoleInput = z.input<typeof ZCreateRoleInput>;

export const ZUpdateRoleInput = z.object({
  role: ZRoleRef,
  name: ZRoleName.optional(),
  description: ZDescription.optional(),
  permissions: ZRolePermissions.optional(),
});
export type UpdateRoleInput = z.input<typeof ZUpdateRoleInput>;

export const ZRoleView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  permissions: z.array(z.string()),
  /** How many members hold it. */
  members: z.number().int(),
  createdAt: z.string(),
});
export type RoleView = z.infer<typeof ZRoleView>;
