import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { client } from "../helpers";
import { teamWorkspace } from "../helpers-dashboard";

const activeKeysOf = (workspaceId: string, userId: string) => db.apiKey.count({ where: { workspaceId, createdById: userId, revokedAt: null } });

describe("rights leave with the member", () => {
  it("removing a member revokes the keys they created (their calls stop) and withdraws their invitations", async () => {
    const { workspace, members } = await teamWorkspace("5", ["owner", "admin", "member"]);
    const { secret } = await members.member!.caller.keys.create({ name: "member key" });
    const ownersKey = await members.owner!.caller.keys.create({ name: "owner key" });
    await members.admin!.caller.workspaces.invite({ role: "admin" });
    const sdk = client(secret);
    await sdk.models.list();

    await members.owner!.caller.workspaces.removeMember({ userId: members.member!.id });
    await members.owner!.caller.workspaces.removeMember({ userId: members.admin!.id });

    expect(await activeKeysOf(workspace.id, members.member!.id)).toBe(0);
    await expect(sdk.models.list()).rejects.toMatchObject({ status: 401 });
    expect(await db.invitation.count({ where: { workspaceId: workspace.id, createdById: members.admin!.id } })).toBe(0);
    // Others' keys are untouched.
    expect(await activeKeysOf(workspace.id, members.owner!.id)).toBe(1);
    await client(ownersKey.secret).models.list();
  });

  it("a member demoted to billing loses their keys; an admin demoted to member loses their pending invitations only", async () => {
    const { workspace, members } = await teamWorkspace("5", ["owner", "admin", "member"]);
    await members.member!.caller.keys.create({ name: "soon revoked" });
    await members.admin!.caller.keys.create({ name: "kept" });
    await members.admin!.caller.workspaces.invite({ role: "member" });

    await members.owner!.caller.workspaces.changeRole({ userId: members.member!.id, role: "billing" });
    await members.owner!.caller.workspaces.changeRole({ userId: members.admin!.id, role: "member" });

    expect(await activeKeysOf(workspace.id, members.member!.id)).toBe(0);
    expect(await activeKeysOf(workspace.id, members.admin!.id)).toBe(1);
    expect(await db.invitation.count({ where: { workspaceId: workspace.id, createdById: members.admin!.id, acceptedAt: null } })).toBe(0);
  });
});

describe("rights follow a custom role too", () => {
  it("a member moved to a custom role without keys.create loses their keys (their calls stop); one with members.manage keeps their invitations", async () => {
    const { workspace, members } = await teamWorkspace("5", ["owner", "admin", "member"]);
    const owner = members.owner!.caller;
    const { secret } = await members.member!.caller.keys.create({ name: "member key" });
    await members.admin!.caller.keys.create({ name: "admin key" });
    await members.admin!.caller.workspaces.invite({ role: "member" });
    await owner.roles.create({ name: "Reader", permissions: ["billing.view"] });
    await owner.roles.create({ name: "People", permissions: ["members.manage", "keys.create"] });

    await owner.workspaces.changeRole({ userId: members.member!.id, customRole: "Reader" });
    await owner.workspaces.changeRole({ userId: members.admin!.id, customRole: "People" });

    expect(await activeKeysOf(workspace.id, members.member!.id)).toBe(0);
    await expect(client(secret).models.list()).rejects.toMatchObject({ status: 401 });
    expect(await activeKeysOf(workspace.id, members.admin!.id)).toBe(1);
    expect(await db.invitation.count({ where: { workspaceId: workspace.id, createdById: members.admin!.id, acceptedAt: null } })).toBe(1);
  });
});

describe("the billing role only looks", () => {
  it("cannot delete videos nor cancel or delete responses, while a member may try (and gets not found for unknown ids)", async () => {
    const { members } = await teamWorkspace("5", ["member", "billing"]);
    const billing = members.billing!.caller;
    await expect(billing.videos.delete({ id: "video-none" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(billing.responses.delete({ id: "resp_none" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(billing.responses.cancel({ id: "resp_none" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(members.member!.caller.videos.delete({ id: "video-none" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
