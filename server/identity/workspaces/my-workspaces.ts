import { z } from "zod";
import { db } from "../../infra/db/client";
import { permissionsOf, PERMISSION_NAMES, ROLES, type Permission } from "./permissions";

/** A member's custom role as the dashboard names it. */
export const ZCustomRoleRef = z.object({ id: z.string(), name: z.string() });

/** The caller's standing in a workspace: their role, their custom role if any, and every permission they hold. */
export const ZMemberStanding = z.object({
  role: z.enum(ROLES),
  customRole: ZCustomRoleRef.nullable(),
  permissions: z.array(z.enum(PERMISSION_NAMES as [Permission, ...Permission[]])),
});

export const ZMyWorkspace = z.object({ id: z.string(), name: z.string() }).extend(ZMemberStanding.shape);
export type MyWorkspace = z.infer<typeof ZMyWorkspace>;

/**
 * The workspaces a user belongs to, oldest membership first, with their standing in each. A
 * deactivated membership (SCIM) gives no access, so it is not listed.
 */
export async function myWorkspaces(userId: string): Promise<MyWorkspace[]> {
  const rows = await db.membership.findMany({
    where: { userId, active: true },
    orderBy: { createdAt: "asc" },
    select: { role: true, customRole: { select: { id: true, name: true, permissions: true } }, workspace: { select: { id: true, name: true } } },
  });
  return rows.map((r) => ({
    id: r.workspace.id,
    name: r.workspace.name,
    role: r.role,
    customRole: r.customRole ? { id: r.customRole.id, name: r.customRole.name } : null,
    permissions: permissionsOf({ role: r.role, permissions: r.customRole?.permissions ?? null }),
  }));
}
