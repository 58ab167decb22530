// Which role a SCIM group gives its members: set by an owner (tRPC scim.mapGroup, the CLI's
// `scim group-role`, the settings page), never by the IdP. A group maps to a built-in role other
// than owner, to one of the workspace's custom roles, or to nothing. Changing it recomputes the
// roles of the group's members (group-roles.ts) in the same transaction, audited scim_group.map.
import { z } from "zod";
import { recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import { GROUP_ROLES, roleChanges, syncGroupRoles } from "./group-roles";

export const ZMapGroupInput = z
  .object({
    /** The group's id, or its displayName. */
    group: z.string().trim().min(1).max(200),
    role: z.enum(GROUP_ROLES).nullish(),
    /** A custom role of the workspace: its id or its name. */
    customRole: z.string().trim().min(1).max(200).nullish(),
  })
  .refine((v) => !(v.role && v.customRole), { message: "Map a group to a built-in role or to a custom role, not both.", path: ["customRole"] });
export type MapGroupInput = z.input<typeof ZMapGroupInput>;

export const ZGroupMapping = z.object({
  id: z.string(),
  display_name: z.string(),
  external_id: z.string().nullable(),
  members: z.number().int(),
  role: z.enum(GROUP_ROLES).nullable(),
  custom_role: z.object({ id: z.string(), name: z.string() }).nullable(),
});
export type GroupMapping = z.infer<typeof ZGroupMapping>;

const SELECT = {
  id: true,
  displayName: true,
  externalId: true,
  role: true,
  customRole: { select: { id: true, name: true } },
  _count: { select: { members: true } },
} as const;

type Row = { id: string; displayName: string; externalId: string | null; role: string | null; customRole: { id: string; name: string } | null; _count: { members: number } };
const view = (g: Row): GroupMapping => ({
  id: g.id,
  display_name: g.displayName,
  external_id: g.externalId,
  members: g._count.members,
  role: (g.role as GroupMapping["role"]) ?? null,
  custom_role: g.customRole,
});

export async function listGroupMappings(workspaceId: string): Promise<GroupMapping[]> {
  const rows = await db.scimGroup.findMany({ where: { workspaceId }, orderBy: { displayName: "asc" }, take: 500, select: SELECT });
  return rows.map(view);
}

export async function mapGroup(workspaceId: string, input: MapGroupInput, actor: AuditActor): Promise<GroupMapping> {
  const data = ZMapGroupInput.parse(input);
  return db.$transaction(async (tx) => {
    const group = await tx.scimGroup.findFirst({
      where: { workspaceId, OR: [{ id: data.group }, { displayName: { equals: data.group, mode: "insensitive" } }] },
      select: { id: true, role: true, customRole: { select: { id: true, name: true } }, members: { select: { membershipId: true } } },
    });
    if (!group) throw errors.notFound(`No SCIM group ${JSON.stringify(data.group)} in this workspace.`, "scim_group_not_found", "group");
    const custom = data.customRole
      ? await tx.customRole.findFirst({ where: { workspaceId, OR: [{ id: data.customRole }, { name: data.customRole }] }, select: { id: true, name: true } })
      : null;
    if (data.customRole && !custom) throw errors.notFound(`No custom role ${JSON.stringify(data.customRole)} in this workspace.`, "role_not_found", "customRole");
    const role = data.role ?? null;
    const row = await tx.scimGroup.update({ where: { id: group.id }, data: { role, customRoleId: custom?.id ?? null }, select: SELECT });
    await recordAudit(tx, {
      workspaceId,
      actor,
      action: "scim_group.map",
      target: { type: "scim_group", id: group.id },
      changes: roleChanges({ role: group.role, customRole: group.customRole?.name ?? null }, { role, customRole: custom?.name ?? null }),
    });
    await syncGroupRoles(tx, workspaceId, group.members.map((m) => m.membershipId), actor);
    return view(row);
  });
}

/** The workspace's custom roles a group may be mapped to, by name. */
export async function customRoleChoices(workspaceId: string): Promise<Array<{ id: string; name: string }>> {
  return db.customRole.findMany({ where: { workspaceId }, orderBy: { name: "asc" }, select: { id: true, name: true } });
}
