// SCIM 2.0 provisioning at /scim/v2, over HTTP as an identity provider sends it: the bearer token
// (hashed at rest, one live per workspace, scoped to it), Users and Groups with filters, paging,
// Okta- and Entra-style PATCH, errors in SCIM's schema with their statuses, deactivation (keys
// revoked, sessions ended, audited) and the roles groups give their members.
import { describe, expect, it } from "vitest";
import { listAudit } from "../../server/audit/list-audit";
import { SYSTEM_ACTOR } from "../../server/audit/actor";
import { mapGroup } from "../../server/identity/scim/group-mapping";
import { createScimToken, revokeScimTokens } from "../../server/identity/scim/scim-tokens";
import { db } from "../../server/infra/db/client";
import { newId } from "../../server/kernel/ids";
import { userCaller } from "../helpers-dashboard";
import { provisioningScript, ScimClient } from "../scim/scim-client";
import { scimWorkspace } from "../scim/scim-fixtures";

const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
type Users = { totalResults: number; startIndex: number; itemsPerPage: number; Resources: Array<Record<string, unknown>> };

async function actions(workspaceId: string, action: string) {
  return (await listAudit(workspaceId, { action, limit: 50 })).events;
}

async function membership(id: string) {
  return db.membership.findUniqueOrThrow({ where: { id }, include: { user: true } });
}

describe("SCIM: the token", () => {
  it("is stored as its sha256 only; a wrong, missing or revoked token gets 401 in SCIM's error schema", async () => {
    const { workspace, token, client } = await scimWorkspace();
    const row = await db.scimToken.findUniqueOrThrow({ where: { id: token.id } });
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.start).toBe(token.token.slice(0, 9));
    expect(JSON.stringify(row)).not.toContain(token.token);
    expect((await client.request("GET", "/Users")).status).toBe(200);

    const wrong = await new ScimClient(client.baseUrl, `scim_${"x".repeat(40)}`).request("GET", "/Users");
    expect(wrong.status).toBe(401);
    expect(wrong.contentType).toContain("application/scim+json");
    expect(wrong.body).toMatchObject({ schemas: [ERROR], status: "401" });
    const missing = await fetch(`${client.baseUrl}/Users`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toContain("Bearer");

    // A new token revokes the older one.
    const next = await createScimToken(workspace.id, SYSTEM_ACTOR);
    expect((await client.request("GET", "/Users")).status).toBe(401);
    const fresh = new ScimClient(client.baseUrl, next.token);
    expect((await fresh.request("GET", "/Users")).status).toBe(200);
    await revokeScimTokens(workspace.id, SYSTEM_ACTOR);
    expect((await fresh.request("GET", "/Users")).status).toBe(401);
    expect((await actions(workspace.id, "scim_token.create")).length).toBe(2);
    expect(await actions(workspace.id, "scim_token.revoke")).toHaveLength(1);
  });

  it("another workspace's token neither sees nor changes this workspace's users and groups", async () => {
    const a = await scimWorkspace();
    const b = await scimWorkspace();
    const ann = await a.client.createUser(`ann@${a.domain}`);
    const group = await a.client.createGroup("A's group", [ann.body.id as string]);
    const id = ann.body.id as string;
    expect((await b.client.request("GET", `/Users/${id}`)).status).toBe(404);
    expect((await b.client.oktaSetActive(id, false)).status).toBe(404);
    expect((await b.client.deleteUser(id)).status).toBe(404);
    expect((await b.client.request("GET", `/Groups/${group.body.id}`)).status).toBe(404);
    expect((await b.client.findUsers(`userName eq "ann@${a.domain}"`)).body.totalResults).toBe(0);
    // Nor can it put A's member into one of its own groups, or provision in A's domain.
    const own = await b.client.createGroup("B's group", [id]);
    expect(own.status).toBe(400);
    expect(own.body).toMatchObject({ scimType: "invalidValue" });
    expect((await b.client.createUser(`eve@${a.domain}`)).body).toMatchObject({ status: "400", scimType: "invalidValue" });
    expect((await membership(id)).active).toBe(true);
  });
});

describe("SCIM: discovery", () => {
  it("answers ServiceProviderConfig, Schemas and ResourceTypes; unknown paths and methods are refused", async () => {
    const { client } = await scimWorkspace();
    const config = await client.request("GET", "/ServiceProviderConfig");
    expect(config.contentType).toContain("application/scim+json");
    expect(config.body).toMatchObject({ patch: { supported: true }, filter: { supported: true, maxResults: 200 }, bulk: { supported: false } });
    const schemas = await client.request<Users>("GET", "/Schemas");
    expect(schemas.body.Resources.map((s) => s.id)).toEqual(["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:core:2.0:Group"]);
    expect((await client.request("GET", "/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group")).body).toMatchObject({ name: "Group" });
    const types = await client.request<Users>("GET", "/ResourceTypes");
    expect(types.body.Resources.map((t) => t.endpoint)).toEqual(["/Users", "/Groups"]);
    expect((await client.request("GET", "/ResourceTypes/User")).body).toMatchObject({ schema: "urn:ietf:params:scim:schemas:core:2.0:User" });
    expect((await client.request("GET", "/Nothing")).status).toBe(404);
    expect((await client.request("POST", "/Bulk", {})).status).toBe(501);
    expect((await client.request("DELETE", "/Users")).status).toBe(405);
  });
});

describe("SCIM: Users", () => {
  it("runs an IdP's life cycle (create, find, Entra and Okta PATCH, deactivate, reactivate, delete) with its audit trail", async () => {
    const { workspace, client, domain, token } = await scimWorkspace({ defaultRole: "billing" });
    const { steps, annId, bobId, tag } = await provisioningScript(client, domain);
    expect(steps.config!.status).toBe(200);
    expect(steps.createAnn!.status).toBe(201);
    expect(steps.createAnn!.body).toMatchObject({ userName: `ann-${tag}@${domain}`, externalId: `okta-${tag}-ann`, active: true, meta: { resourceType: "User" } });
    expect(steps.createAnn!.body).toMatchObject({ meta: { location: `${client.baseUrl}/Users/${annId}` } });
    expect(steps.lookup!.body).toMatchObject({ totalResults: 1, Resources: [{ id: annId }] });
    expect(steps.entraRename!.status).toBe(200);
    expect(steps.entraRename!.body).toMatchObject({ displayName: "Bob Builder", name: { familyName: "Builder" } });
    expect(steps.deactivateAnn!.body).toMatchObject({ active: false });
    expect(steps.deactivateBob!.body).toMatchObject({ active: false });
    expect(steps.reactivateBob!.body).toMatchObject({ active: true });
    expect(steps.deleteAnn!.status).toBe(204);
    expect(steps.getAnn!.status).toBe(404);
    expect(steps.deleteGroup!.status).toBe(204);

    const bob = await membership(bobId);
    expect(bob).toMatchObject({ role: "billing", source: "scim", active: true, scimExternalId: `entra-${tag}-bob` });
    expect(bob.user.name).toBe("Bob Builder");
    expect(bob.user.sessionVersion).toBe(1);
    const provisioned = await actions(workspace.id, "member.provision");
    expect(provisioned.map((e) => e.actor.name)).toEqual([`scim token ${token.id}`, `scim token ${token.id}`]);
    expect(provisioned).toHaveLength(2);
    expect(provisioned[0]!.changes).toMatchObject({ role: { from: null, to: "billing" }, source: { to: "scim" } });
    expect(provisioned.map((e) => e.changes.email?.to).sort()).toEqual([`ann-${tag}@${domain}`, `bob-${tag}@${domain}`]);
    expect((await actions(workspace.id, "member.deactivate")).map((e) => e.target.id).sort()).toEqual([bob.userId, (await db.user.findUniqueOrThrow({ where: { email: `ann-${tag}@${domain}` } })).id].sort());
    expect(await actions(workspace.id, "member.reactivate")).toHaveLength(1);
    expect(await actions(workspace.id, "member.remove")).toHaveLength(1);
  });

  it("filters on userName (without case), externalId, active, emails and displayName; refuses a bad filter with invalidFilter", async () => {
    const { client, domain } = await scimWorkspace();
    const made = [];
    for (const n of ["alice", "albert", "carol"]) made.push((await client.createUser(`${n}@${domain}`, { externalId: `ext-${n}`, displayName: `${n} Person` })).body);
    await client.oktaSetActive(made[2]!.id as string, false);
    const names = async (filter: string) => ((await client.findUsers(filter)).body.Resources ?? []).map((r) => r.userName).sort();
    expect(await names(`userName eq "ALICE@${domain.toUpperCase()}"`)).toEqual([`alice@${domain}`]);
    expect(await names(`urn:ietf:params:scim:schemas:core:2.0:User:userName eq "alice@${domain}"`)).toEqual([`alice@${domain}`]);
    expect(await names(`userName sw "al" and active eq true`)).toEqual([`albert@${domain}`, `alice@${domain}`]);
    expect(await names(`externalId eq "ext-carol" or externalId eq "ext-albert"`)).toEqual([`albert@${domain}`, `carol@${domain}`]);
    expect(await names(`externalId eq "EXT-CAROL"`)).toEqual([]);
    expect(await names(`active eq false`)).toEqual([`carol@${domain}`]);
    expect(await names(`emails[value co "bert@"]`)).toEqual([`albert@${domain}`]);
    expect(await names(`emails.value ew "ice@${domain}"`)).toEqual([`alice@${domain}`]);
    expect(await names(`not (userName co "al") and userName ew "@${domain}" and userName pr`)).toEqual([`carol@${domain}`]);
    expect(await names(`displayName co "carol"`)).toEqual([`carol@${domain}`]);
    for (const bad of ["userName eq", 'title eq "x"', 'active eq "yes"', 'userName gt "a"', 'emails[type eq "work" and value co "x"]']) {
      const res = await client.findUsers(bad);
      expect([bad, res.status, res.body]).toEqual([bad, 400, expect.objectContaining({ schemas: [ERROR], status: "400", scimType: "invalidFilter" })]);
    }
  });

  it("pages with startIndex and count", async () => {
    const { client, domain } = await scimWorkspace();
    for (let i = 0; i < 5; i++) await client.createUser(`p${i}@${domain}`);
    // Five users in the order they were made (the owner's address is outside the verified domain: not a SCIM User).
    const page = await client.request<Users>("GET", "/Users?startIndex=2&count=2");
    expect(page.body).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((r) => r.userName)).toEqual([`p1@${domain}`, `p2@${domain}`]);
    const counted = await client.request<Users>("GET", "/Users?count=0");
    expect(counted.body).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
    const last = await client.request<Users>(`GET`, `/Users?startIndex=5&count=10&attributes=userName`);
    expect(last.body.Resources).toEqual([{ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], id: expect.any(String), userName: `p4@${domain}`, meta: expect.any(Object) }]);
    expect((await client.request("GET", "/Users?count=abc")).status).toBe(400);
  });

  it("refuses bad creates and updates with the right status and scimType", async () => {
    const { client, domain, workspace } = await scimWorkspace();
    const ann = await client.createUser(`ann@${domain}`, { externalId: "e-ann" });
    const id = ann.body.id as string;
    const expectError = (res: { status: number; body: unknown }, status: number, scimType?: string) =>
      expect(res).toMatchObject({ status, body: { schemas: [ERROR], status: String(status), ...(scimType ? { scimType } : {}) } });
    expectError(await client.createUser(`ANN@${domain}`), 409, "uniqueness");
    expectError(await client.createUser(`other@${domain}`, { externalId: "e-ann" }), 409, "uniqueness");
    expectError(await client.createUser(`ann@elsewhere.test`), 400, "invalidValue");
    expectError(await client.createUser("not-an-email"), 400, "invalidValue");
    expectError(await client.request("POST", "/Users", { schemas: [], name: {} }), 400, "invalidValue");
    expectError(await client.request("POST", "/Users", "{not json"), 400, "invalidSyntax");
    expectError(await client.request("POST", "/Users", { userName: `x@${domain}` }, { "content-type": "text/plain" }), 415);
    expectError(await client.request("GET", "/Users/nope"), 404);
    expectError(await client.patch("Users", id, []), 400, "invalidSyntax");
    expectError(await client.request("PATCH", `/Users/${id}`, { Operations: [{ op: "replace", value: { active: false } }] }), 400, "invalidSyntax");
    expectError(await client.patch("Users", id, [{ op: "replace", path: "userName", value: `someone@${domain}` }]), 400, "mutability");
    expectError(await client.patch("Users", id, [{ op: "replace", path: "active", value: "maybe" }]), 400, "invalidValue");
    expectError(await client.patch("Users", id, [{ op: "move", path: "active", value: true }]), 400);
    const big = await client.request("POST", "/Users", { userName: `big@${domain}`, displayName: "x".repeat(1_100_000) });
    expectError(big, 413);
    // A workspace without a verified domain provisions nobody, and says why.
    const bare = await scimWorkspace({ withConnection: false });
    const refused = await bare.client.createUser(`ann@${domain}`);
    expectError(refused, 400, "invalidValue");
    expect((refused.body as { detail: string }).detail).toMatch(/no verified single sign-on domain/);
    expect(await db.membership.count({ where: { workspaceId: workspace.id } })).toBe(2);
    // The owner's membership (outside the domain) cannot be put into a group either.
    const ownerMembership = await db.membership.findFirstOrThrow({ where: { workspaceId: workspace.id, role: "owner" } });
    expectError(await client.createGroup("Owners", [ownerMembership.id]), 400, "invalidValue");
  });

  it("links an existing person by e-mail; PUT replaces the profile; Entra's \"False\" deactivates", async () => {
    const { client, domain, workspace } = await scimWorkspace();
    const person = await db.user.create({ data: { email: `existing@${domain}`, name: "Existing" } });
    const made = await client.createUser(`Existing@${domain}`, { externalId: "x1" });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    expect((await membership(id)).userId).toBe(person.id);
    const put = await client.request("PUT", `/Users/${id}`, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `existing@${domain}`, externalId: "x2", displayName: "Renamed", active: "False" });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ externalId: "x2", displayName: "Renamed", active: false });
    const m = await membership(id);
    expect(m).toMatchObject({ active: false, scimExternalId: "x2" });
    expect(m.deactivatedAt).toBeInstanceOf(Date);
    expect(await db.membership.count({ where: { workspaceId: workspace.id, userId: person.id } })).toBe(1);
  });

  it("deactivation revokes the member's keys and bumps their session version; the last owner cannot be deactivated (409)", async () => {
    const { client, domain, workspace, owner } = await scimWorkspace();
    const made = await client.createUser(`keyholder@${domain}`);
    const m = await membership(made.body.id as string);
    const { key } = await (await userCaller(m.userId, workspace.id)).keys.create({ name: "scim person's key" });
    await client.oktaSetActive(m.id, false);
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).toBeInstanceOf(Date);
    expect((await db.user.findUniqueOrThrow({ where: { id: m.userId } })).sessionVersion).toBe(1);
    // A session with the old version is signed out; one with the new version has no principal in the workspace.
    await expect((await userCaller(m.userId, workspace.id)).workspaces.current()).rejects.toMatchObject({ code: "UNAUTHORIZED" });

    // The owner's own address is outside the verified domain: SCIM neither sees nor changes it.
    const ownerMembership = await db.membership.findFirstOrThrow({ where: { workspaceId: workspace.id, userId: owner.id } });
    expect((await client.findUsers(`userName eq "${owner.email}"`)).body.totalResults).toBe(0);
    expect((await client.oktaSetActive(ownerMembership.id, false)).status).toBe(404);
    expect((await client.deleteUser(ownerMembership.id)).status).toBe(404);
    // An owner in the domain who is the last owner cannot be deactivated or deleted.
    const boss = (await client.createUser(`boss@${domain}`)).body.id as string;
    await db.membership.update({ where: { id: boss }, data: { role: "owner" } });
    await db.membership.update({ where: { id: ownerMembership.id }, data: { role: "admin" } });
    const ownerRow = { id: boss };
    const refused = await client.oktaSetActive(ownerRow.id as string, false);
    expect(refused).toMatchObject({ status: 409, body: { schemas: [ERROR], status: "409" } });
    expect((refused.body as { detail: string }).detail).toMatch(/last owner/);
    expect((await client.deleteUser(ownerRow.id as string)).status).toBe(409);
    expect((await membership(ownerRow.id as string)).active).toBe(true);
  });
});

describe("SCIM: Groups and the roles they give", () => {
  it("creates, filters, patches and deletes groups; a member's role follows their mapped groups, audited", async () => {
    const { client, domain, workspace, owner } = await scimWorkspace({ defaultRole: "viewer" });
    const ids: string[] = [];
    for (const n of ["dana", "eli"]) ids.push((await client.createUser(`${n}@${domain}`)).body.id as string);
    const [dana, eli] = ids as [string, string];
    // An owner in the domain: groups never change an owner's role.
    const ownerId = (await client.createUser(`olga@${domain}`)).body.id as string;
    await db.membership.update({ where: { id: ownerId }, data: { role: "owner" } });
    expect((await client.findUsers(`userName eq "${owner.email}"`)).body.totalResults).toBe(0);
    const admins = await client.createGroup("Admins", [dana, ownerId], "g-admins");
    const billing = await client.createGroup("Billing", [dana, eli]);
    expect(admins.status).toBe(201);
    expect(admins.body).toMatchObject({ displayName: "Admins", externalId: "g-admins", members: expect.arrayContaining([{ value: dana, display: `dana@${domain}`, $ref: expect.stringContaining(`/Users/${dana}`) }]) });
    expect((await client.createGroup("admins")).body).toMatchObject({ status: "409", scimType: "uniqueness" });
    const found = await client.request<Users>("GET", `/Groups?filter=${encodeURIComponent('displayName eq "ADMINS"')}&excludedAttributes=members`);
    expect(found.body.Resources).toEqual([expect.not.objectContaining({ members: expect.anything() })]);
    expect(found.body.Resources[0]).toMatchObject({ id: admins.body.id, displayName: "Admins" });
    const withEli = await client.request<Users>("GET", `/Groups?filter=${encodeURIComponent(`members.value eq "${eli}"`)}`);
    expect(withEli.body.Resources.map((g) => g.displayName)).toEqual(["Billing"]);
    // Users list their groups.
    expect((await client.request("GET", `/Users/${dana}`)).body.groups).toHaveLength(2);

    // Mapping: Admins → admin, Billing → billing. Dana (both) gets admin, Eli billing, the owner stays owner.
    await mapGroup(workspace.id, { group: "Admins", role: "admin" }, SYSTEM_ACTOR);
    await mapGroup(workspace.id, { group: billing.body.id as string, role: "billing" }, SYSTEM_ACTOR);
    expect((await membership(dana)).role).toBe("admin");
    expect((await membership(eli)).role).toBe("billing");
    expect((await membership(ownerId)).role).toBe("owner");
    expect((await actions(workspace.id, "scim_group.map")).map((e) => e.changes)).toContainEqual({ role: { from: null, to: "admin" } });
    const danaUser = (await membership(dana)).userId;
    const changes = (await actions(workspace.id, "member.role_change")).filter((e) => e.target.id === danaUser);
    expect(changes.map((e) => e.changes)).toContainEqual({ role: { from: "viewer", to: "admin" } });

    // Leaving Admins (Okta's filtered remove) drops Dana to billing; leaving every group, to the default.
    expect((await client.oktaRemoveMember(admins.body.id as string, dana)).status).toBe(200);
    expect((await membership(dana)).role).toBe("billing");
    expect((await client.entraRemoveMembers(billing.body.id as string, [dana])).body).toMatchObject({ members: [{ value: eli }] });
    expect((await membership(dana)).role).toBe("viewer");
    // Entra's Add puts her back; deleting the group takes the role away again.
    await client.entraAddMembers(billing.body.id as string, [dana]);
    expect((await membership(dana)).role).toBe("billing");
    expect((await client.deleteGroup(billing.body.id as string)).status).toBe(204);
    expect((await membership(dana)).role).toBe("viewer");
    expect((await membership(eli)).role).toBe("viewer");
    expect(await actions(workspace.id, "scim_group.delete")).toHaveLength(1);
    expect((await actions(workspace.id, "scim_group.update")).length).toBeGreaterThanOrEqual(3);
    expect((await client.request("GET", `/Groups/${billing.body.id}`)).status).toBe(404);
  });

  it("a custom role mapped to a group is given when no built-in role is; the one with most permissions wins", async () => {
    const { client, domain, workspace } = await scimWorkspace({ defaultRole: "member" });
    const fay = (await client.createUser(`fay@${domain}`)).body.id as string;
    const small = await db.customRole.create({ data: { id: newId("role"), workspaceId: workspace.id, name: "Auditor", permissions: ["workspace.view", "audit.view"] } });
    const large = await db.customRole.create({ data: { id: newId("role"), workspaceId: workspace.id, name: "Router", permissions: ["workspace.view", "workspace.use", "routes.manage"] } });
    const g1 = await client.createGroup("Auditors", [fay]);
    const g2 = await client.createGroup("Routers", [fay]);
    await mapGroup(workspace.id, { group: g1.body.id as string, customRole: "Auditor" }, SYSTEM_ACTOR);
    expect(await membership(fay)).toMatchObject({ role: "viewer", customRoleId: small.id });
    await mapGroup(workspace.id, { group: g2.body.id as string, customRole: large.id }, SYSTEM_ACTOR);
    expect(await membership(fay)).toMatchObject({ role: "viewer", customRoleId: large.id });
    const changes = (await actions(workspace.id, "member.role_change")).map((e) => e.changes);
    expect(changes).toContainEqual({ custom_role: { from: "Auditor", to: "Router" } });
    // A built-in role mapped beside them wins; clearing every mapping gives the default back.
    await mapGroup(workspace.id, { group: "Auditors", role: "billing" }, SYSTEM_ACTOR);
    expect(await membership(fay)).toMatchObject({ role: "billing", customRoleId: null });
    await mapGroup(workspace.id, { group: "Auditors" }, SYSTEM_ACTOR);
    await mapGroup(workspace.id, { group: "Routers" }, SYSTEM_ACTOR);
    expect(await membership(fay)).toMatchObject({ role: "member", customRoleId: null });
    await expect(mapGroup(workspace.id, { group: "Nope", role: "admin" }, SYSTEM_ACTOR)).rejects.toMatchObject({ status: 404, code: "scim_group_not_found" });
    await expect(mapGroup(workspace.id, { group: "Routers", customRole: "Nope" }, SYSTEM_ACTOR)).rejects.toMatchObject({ status: 404, code: "role_not_found" });
    await expect(mapGroup(workspace.id, { group: "Routers", role: "owner" as "admin" }, SYSTEM_ACTOR)).rejects.toThrow();
  });
});
