// The workspace's custom roles: every member sees them (the members page names them); those with
// roles.manage create, change and delete them, never beyond their own permissions.
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { createRole, deleteRole, listRoles, updateRole } from "../../identity/roles/custom-roles";
import { ZCreateRoleInput, ZRoleRef, ZRoleView, ZUpdateRoleInput } from "../../identity/roles/role-schemas";
import { PERMISSION_INFO } from "../../identity/roles/permission-info";
import { CUSTOM_ROLE_PERMISSIONS, PERMISSIONS } from "../../identity/workspaces/permissions";
import { router, workspaceProcedure } from "../init";

export const rolesRouter = router({
  list: workspaceProcedure("workspace.view")
    .output(z.array(ZRoleView))
    .query(({ ctx }) => listRoles(ctx.principal.workspaceId)),
  /** The permissions a custom role may hold, what each allows and the built-in roles that hold it: what the role editor offers. */
  permissions: workspaceProcedure("workspace.view")
    .output(z.array(z.object({ name: z.string(), description: z.string(), roles: z.array(z.string()) })))
    .query(() => CUSTOM_ROLE_PERMISSIONS.map((name) => ({ name, description: PERMISSION_INFO[name], roles: [...PERMISSIONS[name]] }))),
  create: workspaceProcedure("roles.manage")
    .input(ZCreateRoleInput)
    .output(ZRoleView)
    .mutation(({ ctx, input }) => createRole(ctx.principal.workspaceId, ctx.principal, input, userActor(ctx.user))),
  update: workspaceProcedure("roles.manage")
    .input(ZUpdateRoleInput)
    .output(ZRoleView)
    .mutation(({ ctx, input }) => updateRole(ctx.principal.workspaceId, ctx.principal, input, userActor(ctx.user))),
  delete: workspaceProcedure("roles.manage")
    .input(z.object({ role: ZRoleRef }))
    .output(z.object({ id: z.string(), name: z.string(), deleted: z.literal(true) }))
    .mutation(({ ctx, input }) => deleteRole(ctx.principal.workspaceId, ctx.principal, input.role, userActor(ctx.user))),
});
