// SCIM Users (RFC 7643 §4.1) of a workspace: a User is a membership and its person. `id` is the
// membership's id, `userName` the person's e-mail, `externalId` the IdP's own id for them,
// `active` whether the membership gives access. `name` and `emails` are kept as the IdP sent
// them and answered back, so a sync sees no drift; `displayName` is the person's name. Only the
// members in the workspace's verified domains are SCIM Users (scim-scope.ts).
import { z } from "zod";
import { recordAudit } from "../../audit/record";
import { scimActor } from "../../audit/actor";
import { db, type Tx } from "../../infra/db/client";
import type { Prisma } from "../../generated/prisma/client";
import { createUserTx } from "../users/create-user";
import { domainOf } from "../users/sso-required";
import { deactivateAndRemoveMember, deactivateMember, reactivateMember } from "../workspaces/deactivate-member";
import { scimErrors } from "./scim-error";
import { filterWhere, type FilterAttributes } from "./scim-filter";
import { applyPatch } from "./scim-patch-apply";
import { paging, projection } from "./scim-query";
import { listResponse, SCHEMA } from "./scim-schemas";
import { isConflict, readBody, ZScimBool, type ScimContext } from "./scim-input";
import { defaultAssignment } from "./group-roles";
import { scimMemberScope, verifiedDomains } from "./scim-scope";

const ZName = z
  .object({
    formatted: z.string().max(500).optional(),
    givenName: z.string().max(200).optional(),
    familyName: z.string().max(200).optional(),
    middleName: z.string().max(200).optional(),
  })
  .optional();
const ZEmails = z
  .array(z.object({ value: z.string().max(320), type: z.string().max(50).optional(), primary: ZScimBool.optional(), display: z.string().max(320).optional() }))
  .max(20)
  .optional();

const ZUserInput = z.object({
  userName: z.string().trim().min(1, "is required").max(320),
  externalId: z.string().max(255).nullish(),
  name: ZName,
  displayName: z.string().max(200).nullish(),
  emails: ZEmails,
  active: ZScimBool.optional(),
});
type UserInput = z.output<typeof ZUserInput>;
type Profile = { name?: UserInput["name"]; emails?: UserInput["emails"] };

const ZEmailAddress = z.email();

const USER_SELECT = {
  id: true,
  active: true,
  createdAt: true,
  deactivatedAt: true,
  scimExternalId: true,
  scimProfile: true,
  user: { select: { id: true, email: true, name: true, updatedAt: true } },
  scimGroups: { select: { group: { select: { id: true, displayName: true } } }, orderBy: { groupId: "asc" } },
} as const satisfies Prisma.MembershipSelect;
type UserRow = Prisma.MembershipGetPayload<{ select: typeof USER_SELECT }>;

const FILTER: FilterAttributes<Prisma.MembershipWhereInput> = {
  username: { type: "string", caseExact: false, where: (c) => ({ user: { email: c } }), present: () => ({ user: { email: { not: null } } }) },
  "emails.value": { type: "string", caseExact: false, where: (c) => ({ user: { email: c } }), present: () => ({ user: { email: { not: null } } }) },
  externalid: { type: "string", caseExact: true, where: (c) => ({ scimExternalId: c }), present: () => ({ scimExternalId: { not: null } }) },
  id: { type: "string", caseExact: true, where: (c) => ({ id: c }), present: () => ({}) },
  displayname: { type: "string", caseExact: false, where: (c) => ({ user: { name: c } }), present: () => ({ user: { name: { not: null } } }) },
  active: { type: "boolean", where: (v) => ({ active: v }) },
};

function userResource(row: UserRow, baseUrl: string) {
  const profile = (row.scimProfile ?? {}) as Profile;
  const email = row.user.email ?? "";
  const changed = [row.createdAt, row.deactivatedAt, row.user.updatedAt].filter((d): d is Date => d !== null);
  return {
    schemas: [SCHEMA.user],
    id: row.id,
    ...(row.scimExternalId ? { externalId: row.scimExternalId } : {}),
    userName: email,
    ...(profile.name ? { name: profile.name } : row.user.name ? { name: { formatted: row.user.name } } : {}),
    ...(row.user.name ? { displayName: row.user.name } : {}),
    emails: profile.emails?.length ? profile.emails : [{ value: email, type: "work", primary: true }],
    active: row.active,
    groups: row.scimGroups.map(({ group }) => ({ value: group.id, display: group.displayName, $ref: `${baseUrl}/Groups/${group.id}` })),
    meta: {
      resourceType: "User",
      created: row.createdAt.toISOString(),
      lastModified: new Date(Math.max(...changed.map((d) => d.getTime()))).toISOString(),
      location: `${baseUrl}/Users/${row.id}`,
    },
  };
}
export type ScimUser = ReturnType<typeof userResource>;

/** The person's name as one string: displayName, else the formatted name, else given and family names. */
function personName(input: UserInput): string | null {
  const joined = [input.name?.givenName, input.name?.familyName].filter(Boolean).join(" ");
  return input.displayName || input.name?.formatted || joined || null;
}

async function findRow(client: Tx | typeof db, ctx: ScimContext, id: string): Promise<UserRow> {
  const row = await client.membership.findFirst({ where: { AND: [{ id }, await scimMemberScope(ctx.workspaceId, client)] }, select: USER_SELECT });
  if (!row) throw scimErrors.notFound("User", id);
  return row;
}

export async function listUsers(ctx: ScimContext, params: URLSearchParams) {
  const filter = await filterWhere(params.get("filter"), FILTER, SCHEMA.user);
  const where: Prisma.MembershipWhereInput = { AND: [await scimMemberScope(ctx.workspaceId), ...(filter ? [filter as Prisma.MembershipWhereInput] : [])] };
  const page = paging(params);
  const [total, rows] = await Promise.all([
    db.membership.count({ where }),
    page.take ? db.membership.findMany({ where, select: USER_SELECT, orderBy: [{ createdAt: "asc" }, { id: "asc" }], skip: page.skip, take: page.take }) : [],
  ]);
  const project = projection(params);
  return listResponse(rows.map((r) => project(userResource(r, ctx.baseUrl))), total, page.startIndex);
}

export async function getUser(ctx: ScimContext, id: string, params: URLSearchParams) {
  return projection(params)(userResource(await findRow(db, ctx, id), ctx.baseUrl));
}

/** The verified domains people may be provisioned in; refuses an address outside them. */
async function assertProvisionableDomain(workspaceId: string, email: string): Promise<void> {
  const domains = await verifiedDomains(workspaceId);
  if (!domains.length) {
    throw scimErrors.invalidValue("This workspace has no verified single sign-on domain: add and verify one (`sso set`, `domain verify`) before provisioning people through SCIM.");
  }
  const domain = domainOf(email);
  if (!domains.includes(domain)) {
    throw scimErrors.invalidValue(`\`userName\`: ${domain} is not a verified domain of this workspace (${domains.join(", ")}).`);
  }
}

export async function createUser(ctx: ScimContext, body: unknown) {
  const input = readBody(ZUserInput, body);
  const email = input.userName.toLowerCase();
  if (!ZEmailAddress.safeParse(email).success) throw scimErrors.invalidValue("`userName` must be the person's e-mail address.");
  await assertProvisionableDomain(ctx.workspaceId, email);
  const actor = scimActor(ctx.tokenId);
  try {
    const id = await db.$transaction(async (tx) => {
      const existing = await tx.user.findUnique({ where: { email }, select: { id: true, memberships: { where: { workspaceId: ctx.workspaceId }, select: { id: true } } } });
      if (existing?.memberships.length) throw scimErrors.uniqueness(`${email} is already a member of this workspace (id ${existing.memberships[0]!.id}).`);
      const user = existing ?? (await createUserTx(tx, { email, name: personName(input) }));
      const assigned = await defaultAssignment(tx, ctx.workspaceId);
      const active = input.active ?? true;
      const row = await tx.membership.create({
        data: {
          workspaceId: ctx.workspaceId,
          userId: user.id,
          role: assigned.role,
          customRoleId: assigned.customRoleId,
          source: "scim",
          active,
          deactivatedAt: active ? null : new Date(),
          scimExternalId: input.externalId ?? null,
          scimProfile: { name: input.name, emails: input.emails } as Prisma.InputJsonValue,
        },
        select: { id: true, customRole: { select: { name: true } } },
      });
      await recordAudit(tx, {
        workspaceId: ctx.workspaceId,
        actor,
        action: "member.provision",
        target: { type: "member", id: user.id },
        changes: {
          email: { from: null, to: email },
          role: { from: null, to: assigned.role },
          ...(row.customRole ? { custom_role: { from: null, to: row.customRole.name } } : {}),
          source: { from: null, to: "scim" },
          active: { from: null, to: active },
        },
      });
      return row.id;
    });
    return userResource(await findRow(db, ctx, id), ctx.baseUrl);
  } catch (err) {
    if (isConflict(err)) throw scimErrors.uniqueness(`A member with this userName or externalId is already provisioned in this workspace.`);
    throw err;
  }
}

/** Writes a whole new state of the user (PUT, or a PATCH once applied). */
async function writeUser(ctx: ScimContext, current: UserRow, body: unknown) {
  const input = readBody(ZUserInput, body);
  if (input.userName.toLowerCase() !== (current.user.email ?? "").toLowerCase()) {
    throw scimErrors.mutability("`userName` cannot change: it is the person's sign-in e-mail. Deprovision the user and provision the new address.");
  }
  const actor = scimActor(ctx.tokenId);
  try {
    await db.$transaction(async (tx) => {
      const name = personName(input);
      await tx.membership.update({
        where: { id: current.id },
        data: { scimExternalId: input.externalId ?? null, scimProfile: { name: input.name, emails: input.emails } as Prisma.InputJsonValue },
      });
      if (name && name !== current.user.name) await tx.user.update({ where: { id: current.user.id }, data: { name } });
      if (input.active === false && current.active) await deactivateMember(tx, ctx.workspaceId, current.id, actor);
      if (input.active === true && !current.active) await reactivateMember(tx, ctx.workspaceId, current.id, actor);
    });
  } catch (err) {
    if (isConflict(err) && (err as { code?: string }).code === "P2002") throw scimErrors.uniqueness("Another member of this workspace has this externalId.");
    throw err;
  }
  return userResource(await findRow(db, ctx, current.id), ctx.baseUrl);
}

export async function replaceUser(ctx: ScimContext, id: string, body: unknown) {
  return writeUser(ctx, await findRow(db, ctx, id), body);
}

export async function patchUser(ctx: ScimContext, id: string, body: unknown) {
  const current = await findRow(db, ctx, id);
  const patched = await applyPatch(userResource(current, ctx.baseUrl), body);
  return writeUser(ctx, current, patched);
}

/** Deprovisions: the member's sessions end, their keys are revoked, and the membership is removed. */
export async function deleteUser(ctx: ScimContext, id: string): Promise<void> {
  const current = await findRow(db, ctx, id);
  await db.$transaction((tx) => deactivateAndRemoveMember(tx, ctx.workspaceId, current.id, scimActor(ctx.tokenId)));
}
