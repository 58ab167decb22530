// A workspace's custom roles: listed by every member, made, changed and deleted by those with
// roles.manage, within their own permissions (role-rules.ts). The workspace always comes from the
// caller's membership and is part of every lookup, so another workspace's role is "not found".
// Each change and its audit event are one transaction. A role still held by a member cannot be
// deleted (409 role_in_use): the members would be left without permissions.
import { Prisma } from "../../generated/prisma/client";
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db, type Tx } from "../../infra/db/client";
import { errors, GatewayError } from "../../kernel/errors";
import { newId } from "../../kernel/ids";
import type { PermissionHolder } from "../workspaces/permissions";
import { withdrawMemberRights } from "../workspaces/withdraw-member-rights";
import { assertWithin } from "./role-rules";
import { ZCreateRoleInput, ZRoleRef, ZUpdateRoleInput, type CreateRoleInput, type RoleView, type UpdateRoleInput } from "./role-schemas";

const SELECT = { id: true, name: true, description: true, permissions: true, createdAt: true, _count: { select: { members: true } } } as const;
type Row = Prisma.CustomRoleGetPayload<{ select: typeof SELECT }>;

const view = (r: Row): RoleView => ({
  id: r.id,
  name: r.name,
  description: r.description,
  permissions: r.permissions,
  members: r._count.members,
  createdAt: r.createdAt.toISOString(),
});

const FIELDS = ["name", "description", "permissions"] as const;

const nameTaken = (name: string) =>
  new GatewayError({ status: 409, code: "role_name_taken", param: "name", message: `This workspace already has a role named ${JSON.stringify(name)}.` });

const isUniqueViolation = (err: unknown) => err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002";

export async function listRoles(workspaceId: string): Promise<RoleView[]> {
  const rows = await db.customRole.findMany({ where: { workspaceId }, orderBy: { name: "asc" }, select: SELECT });
  return rows.map(view);
}

/** A role of this workspace by id or name (a name is matched without regard to case), or 404 role_not_found. */
export async function findRole(tx: Tx | typeof db, workspaceId: string, ref: string, param = "role"): Promise<Row> {
  const key = ZRoleRef.parse(ref);
  const row = await tx.customRole.findFirst({ where: { workspaceId, OR: [{ id: key }, { name: { equals: key, mode: "insensitive" } }] }, select: SELECT });
  if (!row) throw errors.notFound(`No custom role ${JSON.stringify(key)} in this workspace.`, "role_not_found", param);
  return row;
}

/** Names are told apart without regard to case ("Auditor" and "auditor" would be the same role to a reader); the unique index catches a race. */
async function assertNameFree(tx: Tx, workspaceId: string, name: string, exceptId: string | null): Promise<void> {
  const clash = await tx.customRole.findFirst({ where: { workspaceId, name: { equals: name, mode: "insensitive" }, NOT: exceptId ? { id: exceptId } : undefined }, select: { id: true } });
  if (clash) throw nameTaken(name);
}

export async function createRole(workspaceId: string, by: PermissionHolder, input: CreateRoleInput, actor?: AuditActor): Promise<RoleView> {
  const data = ZCreateRoleInput.parse(input);
  assertWithin(by, data.permissions, "create this role");
  try {
    return await db.$transaction(async (tx) => {
      await assertNameFree(tx, workspaceId, data.name, null);
      const row = await tx.customRole.create({ data: { id: newId("role"), workspaceId, ...data }, select: SELECT });
      await recordAudit(tx, { workspaceId, actor, action: "role.create", target: { type: "role", id: row.id }, changes: diff(null, data, FIELDS) });
      return view(row);
    });
  } catch (err) {
    throw isUniqueViolation(err) ? nameTaken(data.name) : err;
  }
}

export async function updateRole(workspaceId: string, by: PermissionHolder, input: UpdateRoleInput, actor?: AuditActor): Promise<RoleView> {
  const { role, ...patch } = ZUpdateRoleInput.parse(input);
  try {
    return await db.$transaction(async (tx) => {
      const before = await findRole(tx, workspaceId, role);
      // Editing a role is handing out what it holds after, and taking away what it held before.
      assertWithin(by, before.permissions, "change this role");
      if (patch.permissions) assertWithin(by, patch.permissions, "give this role these permissions");
      if (patch.name) await assertNameFree(tx, workspaceId, patch.name, before.id);
      const row = await tx.customRole.update({ where: { id: before.id }, data: patch, select: SELECT });
      // Members whose role no longer holds keys or invites lose those now, as with a change of role.
      if (patch.permissions) {
        const holders = await tx.membership.findMany({ where: { workspaceId, customRoleId: row.id }, select: { userId: true } });
        for (const h of holders) await withdrawMemberRights(tx, workspaceId, h.userId, { role: "viewer", permissions: row.permissions });
      }
      const changes = diff(before, row, FIELDS);
      if (Object.keys(changes).length) await recordAudit(tx, { workspaceId, actor, action: "role.update", target: { type: "role", id: row.id }, changes });
      return view(row);
    });
  } catch (err) {
    throw isUniqueViolation(err) ? nameTaken(patch.name ?? "") : err;
  }
}

export async function deleteRole(workspaceId: string, by: PermissionHolder, ref: string, actor?: AuditActor): Promise<{ id: string; name: string; deleted: true }> {
  return db.$transaction(async (tx) => {
    const row = await findRole(tx, workspaceId, ref);
    assertWithin(by, row.permissions, "delete this role");
    if (row._count.members > 0) {
      throw new GatewayError({
        status: 409,
        code: "role_in_use",
        param: "role",
        message: `${row._count.members} member(s) hold the role ${JSON.stringify(row.name)}. Give them another role first.`,
      });
    }
    // The foreign key refuses the delete too if a member took the role meanwhile; its pending invitations go with it.
    await tx.customRole.delete({ where: { id: row.id } });
    await recordAudit(tx, { workspaceId, actor, action: "role.delete", target: { type: "role", id: row.id }, changes: diff(row, null, FIELDS) });
    return { id: row.id, name: row.name, deleted: true as const };
  });
}
