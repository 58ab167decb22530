// SCIM Groups (RFC 7643 §4.2) of a workspace. A group's members are SCIM Users of the same
// workspace (membership ids). Groups carry roles: a group mapped to a role (group-mapping.ts)
// gives it to its members, so every change of a group's members recomputes the roles of the
// members it touched (group-roles.ts), in the same transaction as the change and its audit event.
import { z } from "zod";
import { recordAudit } from "../../audit/record";
import { scimActor } from "../../audit/actor";
import { db, type Tx } from "../../infra/db/client";
import type { Prisma } from "../../generated/prisma/client";
import { newId } from "../../kernel/ids";
import { ScimError, scimErrors } from "./scim-error";
import { filterWhere, type FilterAttributes } from "./scim-filter";
import { applyPatch } from "./scim-patch-apply";
import { paging, projection } from "./scim-query";
import { listResponse, SCHEMA } from "./scim-schemas";
import { isConflict, readBody, type ScimContext } from "./scim-input";
import { syncGroupRoles } from "./group-roles";
import { scimMemberScope } from "./scim-scope";

const MAX_MEMBERS = 10_000;

const ZGroupInput = z.object({
  displayName: z.string().trim().min(1, "is required").max(200),
  externalId: z.string().max(255).nullish(),
  members: z.array(z.object({ value: z.string().min(1).max(100) })).max(MAX_MEMBERS).optional(),
});
type GroupInput = z.output<typeof ZGroupInput>;

const GROUP_SELECT = {
  id: true,
  displayName: true,
  externalId: true,
  createdAt: true,
  updatedAt: true,
  members: { select: { membershipId: true, membership: { select: { user: { select: { email: true } } } } }, orderBy: { membershipId: "asc" } },
} as const satisfies Prisma.ScimGroupSelect;
type GroupRow = Prisma.ScimGroupGetPayload<{ select: typeof GROUP_SELECT }>;

const FILTER: FilterAttributes<Prisma.ScimGroupWhereInput> = {
  displayname: { type: "string", caseExact: false, where: (c) => ({ displayName: c }), present: () => ({}) },
  externalid: { type: "string", caseExact: true, where: (c) => ({ externalId: c }), present: () => ({ externalId: { not: null } }) },
  id: { type: "string", caseExact: true, where: (c) => ({ id: c }), present: () => ({}) },
  "members.value": { type: "string", caseExact: true, where: (c) => ({ members: { some: { membershipId: c } } }), present: () => ({ members: { some: {} } }) },
};

function groupResource(row: GroupRow, baseUrl: string) {
  return {
    schemas: [SCHEMA.group],
    id: row.id,
    displayName: row.displayName,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    members: row.members.map((m) => ({ value: m.membershipId, display: m.membership.user.email ?? undefined, $ref: `${baseUrl}/Users/${m.membershipId}` })),
    meta: { resourceType: "Group", created: row.createdAt.toISOString(), lastModified: row.updatedAt.toISOString(), location: `${baseUrl}/Groups/${row.id}` },
  };
}

async function findRow(ctx: ScimContext, id: string): Promise<GroupRow> {
  const row = await db.scimGroup.findFirst({ where: { id, workspaceId: ctx.workspaceId }, select: GROUP_SELECT });
  if (!row) throw scimErrors.notFound("Group", id);
  return row;
}

export async function listGroups(ctx: ScimContext, params: URLSearchParams) {
  const filter = await filterWhere(params.get("filter"), FILTER, SCHEMA.group);
  const where: Prisma.ScimGroupWhereInput = { workspaceId: ctx.workspaceId, ...(filter ? { AND: [filter as Prisma.ScimGroupWhereInput] } : {}) };
  const page = paging(params);
  const [total, rows] = await Promise.all([
    db.scimGroup.count({ where }),
    page.take ? db.scimGroup.findMany({ where, select: GROUP_SELECT, orderBy: [{ createdAt: "asc" }, { id: "asc" }], skip: page.skip, take: page.take }) : [],
  ]);
  const project = projection(params);
  return listResponse(rows.map((r) => project(groupResource(r, ctx.baseUrl))), total, page.startIndex);
}

export async function getGroup(ctx: ScimContext, id: string, params: URLSearchParams) {
  return projection(params)(groupResource(await findRow(ctx, id), ctx.baseUrl));
}

/** The member ids of the input, each checked to be a User of this workspace. */
async function memberIds(tx: Tx, workspaceId: string, input: GroupInput): Promise<string[]> {
  const ids = [...new Set((input.members ?? []).map((m) => m.value))];
  if (!ids.length) return ids;
  const scope = await scimMemberScope(workspaceId, tx);
  const found = new Set((await tx.membership.findMany({ where: { AND: [scope, { id: { in: ids } }] }, select: { id: true } })).map((m) => m.id));
  const unknown = ids.find((id) => !found.has(id));
  if (unknown) throw scimErrors.invalidValue(`\`members\`: no User with id ${JSON.stringify(unknown)} in this workspace.`);
  return ids;
}

const sample = (ids: string[]) => ids.slice(0, 50);

/** Creates (current null) or replaces a group, its members and the roles they get from it. */
async function writeGroup(ctx: ScimContext, current: GroupRow | null, body: unknown): Promise<string> {
  const input = readBody(ZGroupInput, body);
  const actor = scimActor(ctx.tokenId);
  try {
    return await db.$transaction(async (tx) => {
      // displayName is not case-exact (RFC 7643 §4.2): "admins" and "Admins" are one group.
      const clash = await tx.scimGroup.findFirst({
        where: { workspaceId: ctx.workspaceId, displayName: { equals: input.displayName, mode: "insensitive" }, ...(current ? { id: { not: current.id } } : {}) },
        select: { id: true },
      });
      if (clash) throw scimErrors.uniqueness(`Another group of this workspace is named ${JSON.stringify(input.displayName)} (id ${clash.id}).`);
      const ids = await memberIds(tx, ctx.workspaceId, input);
      const before = current?.members.map((m) => m.membershipId) ?? [];
      const added = ids.filter((id) => !before.includes(id));
      const removed = before.filter((id) => !ids.includes(id));
      const id = current?.id ?? newId("scimg");
      const data = { displayName: input.displayName, externalId: input.externalId ?? null };
      if (current) await tx.scimGroup.update({ where: { id }, data });
      else await tx.scimGroup.create({ data: { id, workspaceId: ctx.workspaceId, ...data } });
      if (removed.length) await tx.scimGroupMember.deleteMany({ where: { groupId: id, membershipId: { in: removed } } });
      if (added.length) await tx.scimGroupMember.createMany({ data: added.map((membershipId) => ({ groupId: id, membershipId })), skipDuplicates: true });
      const changes = {
        ...(current?.displayName !== data.displayName ? { display_name: { from: current?.displayName ?? null, to: data.displayName } } : {}),
        ...((current?.externalId ?? null) !== data.externalId ? { external_id: { from: current?.externalId ?? null, to: data.externalId } } : {}),
        ...(added.length ? { members_added: { from: null, to: sample(added) } } : {}),
        ...(removed.length ? { members_removed: { from: sample(removed), to: null } } : {}),
      };
      if (!current || Object.keys(changes).length) {
        await recordAudit(tx, { workspaceId: ctx.workspaceId, actor, action: current ? "scim_group.update" : "scim_group.create", target: { type: "scim_group", id }, changes });
      }
      await syncGroupRoles(tx, ctx.workspaceId, [...added, ...removed], actor);
      return id;
    });
  } catch (err) {
    if (isConflict(err) && !(err instanceof ScimError)) throw scimErrors.uniqueness("Another group of this workspace has this displayName or externalId.");
    throw err;
  }
}

export async function createGroup(ctx: ScimContext, body: unknown) {
  const id = await writeGroup(ctx, null, body);
  return groupResource(await findRow(ctx, id), ctx.baseUrl);
}

export async function replaceGroup(ctx: ScimContext, id: string, body: unknown) {
  await writeGroup(ctx, await findRow(ctx, id), body);
  return groupResource(await findRow(ctx, id), ctx.baseUrl);
}

export async function patchGroup(ctx: ScimContext, id: string, body: unknown) {
  const current = await findRow(ctx, id);
  const patched = await applyPatch(groupResource(current, ctx.baseUrl), body);
  await writeGroup(ctx, current, patched);
  return groupResource(await findRow(ctx, id), ctx.baseUrl);
}

/** Deletes the group; its former members' roles are recomputed without it. */
export async function deleteGroup(ctx: ScimContext, id: string): Promise<void> {
  const current = await findRow(ctx, id);
  const actor = scimActor(ctx.tokenId);
  await db.$transaction(async (tx) => {
    await tx.scimGroup.delete({ where: { id: current.id } });
    await recordAudit(tx, {
      workspaceId: ctx.workspaceId,
      actor,
      action: "scim_group.delete",
      target: { type: "scim_group", id: current.id },
      changes: { display_name: { from: current.displayName, to: null } },
    });
    await syncGroupRoles(tx, ctx.workspaceId, current.members.map((m) => m.membershipId), actor);
  });
}
