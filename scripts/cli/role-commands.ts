// Custom roles and members' roles from the CLI. A permission name is checked by the service's
// schema (an unknown one is a usage error naming --permissions). The operator acts as an owner would (every
// permission is theirs to give); each change is audited with the CLI as its actor.
import { cliActor } from "../../server/audit/actor";
import { createRole, deleteRole, listRoles, updateRole } from "../../server/identity/roles/custom-roles";
import { ZCreateRoleInput, ZUpdateRoleInput, type RoleView } from "../../server/identity/roles/role-schemas";
import { changeMemberRole } from "../../server/identity/workspaces/change-member-role";
import { listMembers, OPERATOR } from "../../server/identity/workspaces/members";
import { ROLES, type Permission } from "../../server/identity/workspaces/permissions";
import { errors } from "../../server/kernel/errors";
import { parse, required, type Command } from "./args";
import { checked, list } from "./flag-values";
import { table } from "./output";
import { requireWorkspace } from "./require-workspace";

const FLAG_OF: Record<string, string> = { name: "name", description: "description", permissions: "permissions", role: "ROLE" };
const OPTIONS = { name: { type: "string" }, permissions: { type: "string" }, description: { type: "string" } } as const;

const roleRows = (roles: RoleView[]) => roles.map((r) => ({ id: r.id, name: r.name, members: r.members, permissions: r.permissions.join(","), description: r.description }));
const summary = (r: RoleView) => `${r.name} (${r.id}): ${r.permissions.join(", ")}`;

export const roleCommands: Record<string, Command> = {
  "role create": (argv) => {
    const { values, args } = parse(argv, OPTIONS, ["WORKSPACE_ID"]);
    const input = checked(ZCreateRoleInput, { name: required(values.name, "name"), description: values.description, permissions: list(required(values.permissions, "permissions")) as Permission[] }, FLAG_OF);
    return async () => {
      await requireWorkspace(args[0]!);
      const role = await createRole(args[0]!, OPERATOR, input, cliActor());
      return { json: { role }, text: `Created the role ${summary(role)}.`, asJson: values.json };
    };
  },
  "role list": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    return async () => {
      await requireWorkspace(args[0]!);
      const roles = await listRoles(args[0]!);
      return { json: { roles }, text: table(roleRows(roles)), asJson: values.json };
    };
  },
  "role update": (argv) => {
    const { values, args } = parse(argv, OPTIONS, ["WORKSPACE_ID", "ROLE"]);
    const input = checked(ZUpdateRoleInput, { role: args[1]!, name: values.name, description: values.description, permissions: list(values.permissions) as Permission[] | undefined }, FLAG_OF);
    return async () => {
      await requireWorkspace(args[0]!);
      const role = await updateRole(args[0]!, OPERATOR, input, cliActor());
      return { json: { role }, text: `Updated the role ${summary(role)}.`, asJson: values.json };
    };
  },
  "role delete": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID", "ROLE"]);
    return async () => {
      await requireWorkspace(args[0]!);
      const deleted = await deleteRole(args[0]!, OPERATOR, args[1]!, cliActor());
      return { json: deleted, text: `Deleted the role ${deleted.name} (${deleted.id}).`, asJson: values.json };
    };
  },
  "member role": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID", "EMAIL", "ROLE"]);
    const [workspaceId, email, role] = args as [string, string, string];
    // A built-in role's name is that role; anything else names a custom role (custom roles cannot take a built-in name).
    const wanted = (ROLES as readonly string[]).includes(role) ? { role: role as (typeof ROLES)[number] } : { customRole: role };
    return async () => {
      await requireWorkspace(workspaceId);
      const member = (await listMembers(workspaceId)).find((m) => m.email?.toLowerCase() === email.toLowerCase());
      if (!member) throw errors.notFound(`${email} is not a member of workspace ${workspaceId}.`, "member_not_found", "email");
      const changed = await changeMemberRole(workspaceId, null, { userId: member.userId, ...wanted }, cliActor());
      return { json: { member: changed }, text: `${email} is now ${changed.customRole?.name ?? changed.role} in ${workspaceId}.`, asJson: values.json };
    };
  },
};
