// Custom roles: a workspace's own sets of permissions. Made, changed and deleted by those who
// manage roles, never beyond their own permissions; assigned like a built-in role (and through
// invitations); enforced by the procedures; audited; invisible to other workspaces.
import { getTRPCErrorFromUnknown } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { cli } from "../cli-process";
import { newUser, teamWorkspace, userCaller } from "../helpers-dashboard";

/** The HTTP status and gateway code a tRPC call failed with. */
const failure = (call: Promise<unknown>) =>
  call.then(
    () => null,
    (e: unknown) => {
      const err = getTRPCErrorFromUnknown(e);
      const cause = err.cause as { status?: number; code?: string } | undefined;
      return { code: err.code, gatewayCode: cause?.code ?? null };
    },
  );

const auditOf = (workspaceId: string, action: string) => db.auditEvent.findMany({ where: { workspaceId, action }, orderBy: { id: "asc" } });

describe("custom roles", () => {
  it("an owner creates, lists, renames and deletes a role; each change is audited; names are checked", async () => {
    const { workspace, members } = await teamWorkspace("5", ["owner", "member"]);
    const owner = members.owner!.caller;
    const made = await owner.roles.create({ name: "Key maker", description: "Makes keys", permissions: ["keys.create"] });
    // Every role sees the workspace it is in.
    expect(made).toMatchObject({ name: "Key maker", description: "Makes keys", permissions: ["workspace.view", "keys.create"], members: 0 });
    expect(made.id).toMatch(/^role_/);
    expect(await members.member!.caller.roles.list()).toEqual([made]);

    expect(await failure(owner.roles.create({ name: "key maker", permissions: ["keys.create"] }))).toEqual({ code: "CONFLICT", gatewayCode: "role_name_taken" });
    expect(await failure(owner.roles.create({ name: "Admin", permissions: ["keys.create"] }))).toMatchObject({ code: "BAD_REQUEST" });
    expect(await failure(owner.roles.create({ name: "Sso", permissions: ["sso.manage" as "keys.create"] }))).toMatchObject({ code: "BAD_REQUEST" });
    expect(await failure(owner.roles.create({ name: "None", permissions: [] }))).toMatchObject({ code: "BAD_REQUEST" });
    // A member (no roles.manage) cannot.
    expect(await failure(members.member!.caller.roles.create({ name: "Mine", permissions: ["keys.create"] }))).toMatchObject({ code: "FORBIDDEN" });

    const renamed = await owner.roles.update({ role: made.id, name: "Keys", permissions: ["keys.create", "billing.view"] });
    expect(renamed).toMatchObject({ id: made.id, name: "Keys", permissions: ["workspace.view", "keys.create", "billing.view"] });
    expect(await owner.roles.delete({ role: "keys" })).toEqual({ id: made.id, name: "Keys", deleted: true });
    expect(await owner.roles.list()).toEqual([]);

    const [created] = await auditOf(workspace.id, "role.create");
    expect(created).toMatchObject({ targetType: "role", targetId: made.id, actorId: members.owner!.id });
    expect(created!.changes).toMatchObject({ name: { from: null, to: "Key maker" }, permissions: { from: null, to: ["workspace.view", "keys.create"] } });
    const [updated] = await auditOf(workspace.id, "role.update");
    expect(updated!.changes).toEqual({
      name: { from: "Key maker", to: "Keys" },
      permissions: { from: ["workspace.view", "keys.create"], to: ["workspace.view", "keys.create", "billing.view"] },
    });
    expect(await auditOf(workspace.id, "role.delete")).toHaveLength(1);
  });

  it("a member given a role with keys.create can create keys and cannot manage plans; the change is audited with the role's name", async () => {
    const { workspace, members } = await teamWorkspace("5", ["owner", "member"]);
    const role = await members.owner!.caller.roles.create({ name: "Key maker", permissions: ["keys.create"] });
    const changed = await members.owner!.caller.workspaces.changeRole({ userId: members.member!.id, customRole: role.id });
    expect(changed).toMatchObject({ userId: members.member!.id, role: "viewer", customRole: { id: role.id, name: "Key maker" } });

    const keyMaker = await userCaller(members.member!.id, workspace.id);
    expect(await keyMaker.workspaces.current()).toMatchObject({ role: "viewer", customRole: { id: role.id, name: "Key maker" }, permissions: ["workspace.view", "keys.create"] });
    const { key } = await keyMaker.keys.create({ name: "made by a custom role" });
    expect(key.name).toBe("made by a custom role");
    expect(await failure(keyMaker.plans.create({ name: "Free" }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await failure(keyMaker.workspaces.invite({ role: "member" }))).toMatchObject({ code: "FORBIDDEN" });
    // It lacks workspace.use: a dashboard mutation of the contract is refused, a read is not.
    expect(await failure(keyMaker.workspaces.leave())).toMatchObject({ code: "FORBIDDEN" });
    expect(await keyMaker.models.list({})).toMatchObject({ object: "list" });

    const [event] = await auditOf(workspace.id, "member.role_change");
    expect(event).toMatchObject({ targetId: members.member!.id, actorId: members.owner!.id });
    expect(event!.changes).toEqual({ role: { from: "member", to: "viewer" }, custom_role: { from: null, to: "Key maker" } });

    // A role in use cannot be deleted; back to a built-in role, it can.
    expect(await failure(members.owner!.caller.roles.delete({ role: role.id }))).toEqual({ code: "CONFLICT", gatewayCode: "role_in_use" });
    await members.owner!.caller.workspaces.changeRole({ userId: members.member!.id, role: "member" });
    const [, back] = await auditOf(workspace.id, "member.role_change");
    expect(back!.changes).toEqual({ role: { from: "viewer", to: "member" }, custom_role: { from: "Key maker", to: null } });
    await members.owner!.caller.roles.delete({ role: role.id });
  });

  it("nobody hands out more than they hold: a custom role that manages roles and members cannot create, edit or assign a bigger one", async () => {
    const { workspace, members } = await teamWorkspace("5", ["owner", "admin", "member", "billing", "viewer"]);
    const owner = members.owner!.caller;
    const manager = await owner.roles.create({ name: "People", permissions: ["roles.manage", "members.manage", "keys.create"] });
    const big = await owner.roles.create({ name: "Planner", permissions: ["plans.manage"] });
    await owner.workspaces.changeRole({ userId: members.member!.id, customRole: "People" });
    const people = await userCaller(members.member!.id, workspace.id);

    expect(await failure(people.roles.create({ name: "Escalator", permissions: ["plans.manage"] }))).toEqual({ code: "FORBIDDEN", gatewayCode: "permission_denied" });
    expect(await failure(people.roles.update({ role: big.id, name: "Renamed" }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await failure(people.roles.delete({ role: big.id }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await failure(people.roles.update({ role: manager.id, permissions: ["roles.manage", "members.manage", "keys.create", "keys.manage"] }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await failure(people.workspaces.changeRole({ userId: members.billing!.id, role: "admin" }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await failure(people.workspaces.changeRole({ userId: members.billing!.id, customRole: big.id }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await failure(people.workspaces.changeRole({ userId: members.admin!.id, role: "viewer" }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await failure(people.workspaces.invite({ customRole: big.id }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await failure(people.workspaces.removeMember({ userId: members.admin!.id }))).toMatchObject({ code: "FORBIDDEN" });
    // A billing member holds workspace.use and billing.view, which this role lacks: it cannot change them either.
    expect(await failure(people.workspaces.changeRole({ userId: members.billing!.id, role: "viewer" }))).toMatchObject({ code: "FORBIDDEN" });

    // Within its own permissions it may.
    const small = await people.roles.create({ name: "Keys only", permissions: ["keys.create"] });
    await people.workspaces.changeRole({ userId: members.viewer!.id, customRole: small.id });
    await people.workspaces.changeRole({ userId: members.viewer!.id, role: "viewer" });
    expect(await db.membership.findFirst({ where: { workspaceId: workspace.id, userId: members.viewer!.id }, select: { role: true, customRoleId: true } })).toEqual({ role: "viewer", customRoleId: null });
  });

  it("a role losing keys.create revokes its members' keys; an invitation into a custom role gives it on accepting", async () => {
    const { workspace, members } = await teamWorkspace("5", ["owner", "member"]);
    const owner = members.owner!.caller;
    const role = await owner.roles.create({ name: "Key maker", permissions: ["keys.create"] });
    await owner.workspaces.changeRole({ userId: members.member!.id, customRole: role.id });
    await (await userCaller(members.member!.id, workspace.id)).keys.create({ name: "soon revoked" });
    await owner.roles.update({ role: role.id, permissions: ["billing.view"] });
    expect(await db.apiKey.count({ where: { workspaceId: workspace.id, createdById: members.member!.id, revokedAt: null } })).toBe(0);

    const invitee = await newUser();
    const invitation = await owner.workspaces.invite({ customRole: "key maker", email: invitee.email });
    expect((await owner.workspaces.invitations())[0]).toMatchObject({ id: invitation.id, role: "viewer", customRole: "Key maker" });
    expect(await owner.workspaces.invitationPreview({ token: invitation.token })).toMatchObject({ role: "viewer", customRole: "Key maker" });
    await (await userCaller(invitee.id)).workspaces.acceptInvitation({ token: invitation.token });
    expect(await (await userCaller(invitee.id, workspace.id)).workspaces.current()).toMatchObject({ customRole: { id: role.id, name: "Key maker" }, permissions: ["workspace.view", "billing.view"] });
    expect((await (await userCaller(invitee.id)).account.me()).workspaces).toEqual([
      { id: workspace.id, name: workspace.name, role: "viewer", customRole: { id: role.id, name: "Key maker" }, permissions: ["workspace.view", "billing.view"] },
    ]);
  });

  it("another workspace's role is neither listed nor assignable, changeable or deletable", async () => {
    const a = await teamWorkspace("5", ["owner", "member"]);
    const b = await teamWorkspace("5", ["owner"]);
    const theirs = await b.members.owner!.caller.roles.create({ name: "Theirs", permissions: ["keys.create"] });
    const owner = a.members.owner!.caller;
    expect(await owner.roles.list()).toEqual([]);
    const notFound = { code: "NOT_FOUND", gatewayCode: "role_not_found" };
    expect(await failure(owner.workspaces.changeRole({ userId: a.members.member!.id, customRole: theirs.id }))).toEqual(notFound);
    expect(await failure(owner.workspaces.invite({ customRole: theirs.id }))).toEqual(notFound);
    expect(await failure(owner.roles.update({ role: theirs.id, name: "Mine now" }))).toEqual(notFound);
    expect(await failure(owner.roles.delete({ role: theirs.id }))).toEqual(notFound);
    expect(await b.members.owner!.caller.roles.list()).toEqual([theirs]);
  });

  it("the CLI creates, lists, updates and deletes roles and gives a member one", async () => {
    const { workspace, members } = await teamWorkspace("5", ["owner", "member"]);
    const ws = workspace.id;
    const run = async (...args: string[]) => {
      const r = await cli(...args, "--json");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout);
    };
    const { role } = await run("role", "create", ws, "--name", "Auditor", "--permissions", "audit.view,billing.view", "--description", "Reads the log");
    expect(role).toMatchObject({ name: "Auditor", permissions: ["workspace.view", "billing.view", "audit.view"], description: "Reads the log" });
    expect((await run("role", "list", ws)).roles).toEqual([role]);
    const bad = await cli("role", "create", ws, "--name", "Bad", "--permissions", "sso.manage");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--permissions");
    const { member } = await run("member", "role", ws, members.member!.email, "auditor");
    expect(member).toMatchObject({ role: "viewer", customRole: { id: role.id, name: "Auditor" } });
    expect((await (await userCaller(members.member!.id, ws)).audit.list({})).events.length).toBeGreaterThan(0);
    const inUse = await cli("role", "delete", ws, "Auditor");
    expect(inUse.code).not.toBe(0);
    expect(inUse.stderr).toContain("hold the role");
    expect((await run("member", "role", ws, members.member!.email, "billing")).member).toMatchObject({ role: "billing", customRole: null });
    expect((await run("role", "update", ws, "Auditor", "--name", "Reader")).role).toMatchObject({ id: role.id, name: "Reader" });
    expect(await run("role", "delete", ws, "Reader")).toEqual({ id: role.id, name: "Reader", deleted: true });
    const [event] = await auditOf(ws, "role.create");
    expect(event).toMatchObject({ actorType: "cli" });
  }, 120_000);
});
