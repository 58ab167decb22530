import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { hashInvitationToken } from "../../server/identity/workspaces/invitations";
import { newUser, teamWorkspace, userCaller } from "../helpers-dashboard";

/** The tRPC code a call failed with (FORBIDDEN, NOT_FOUND, ...). */
function codeOf(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => "OK",
    (err) => {
      if (err instanceof TRPCError) return err.code;
      throw err;
    },
  );
}

async function signedIn() {
  const user = await newUser();
  return { ...user, caller: await userCaller(user.id) };
}

describe("workspaces: create, view, rename", () => {
  it("the creator of a workspace is its owner", async () => {
    const u = await signedIn();
    const created = await u.caller.workspaces.create({ name: "  Research  " });
    expect(created.name).toBe("Research");
    const inWs = await userCaller(u.id, created.id);
    const current = await inWs.workspaces.current();
    expect(current).toMatchObject({ id: created.id, name: "Research", role: "owner", members: 1 });
    expect(await inWs.workspaces.members()).toEqual([expect.objectContaining({ userId: u.id, role: "owner", email: u.email })]);
  });

  it("rename needs workspace.rename: owner and admin yes, member and billing are forbidden", async () => {
    const { workspace, members } = await teamWorkspace();
    await members.owner!.caller.workspaces.rename({ name: "By owner" });
    await members.admin!.caller.workspaces.rename({ name: "By admin" });
    expect(await codeOf(members.member!.caller.workspaces.rename({ name: "By member" }))).toBe("FORBIDDEN");
    expect(await codeOf(members.billing!.caller.workspaces.rename({ name: "By billing" }))).toBe("FORBIDDEN");
    expect((await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } })).name).toBe("By admin");
    expect(await codeOf(members.owner!.caller.workspaces.rename({ name: "   " }))).toBe("BAD_REQUEST");
  });

  it("a user who is not a member gets NOT_FOUND from every workspace procedure", async () => {
    const { workspace } = await teamWorkspace();
    const stranger = await newUser();
    const caller = await userCaller(stranger.id, workspace.id);
    expect(await codeOf(caller.workspaces.current())).toBe("NOT_FOUND");
    expect(await codeOf(caller.workspaces.members())).toBe("NOT_FOUND");
    expect(await codeOf(caller.workspaces.rename({ name: "Taken" }))).toBe("NOT_FOUND");
    expect(await codeOf(caller.workspaces.invite({ role: "member" }))).toBe("NOT_FOUND");
    expect(await codeOf(caller.workspaces.leave())).toBe("NOT_FOUND");
  });

  it("signed-out callers cannot create workspaces or accept invitations", async () => {
    const anonymous = await userCaller("nobody");
    expect(await codeOf(anonymous.workspaces.create({ name: "x" }))).toBe("UNAUTHORIZED");
    expect(await codeOf(anonymous.workspaces.acceptInvitation({ token: "gwinv_x" }))).toBe("UNAUTHORIZED");
  });
});

describe("invitations", () => {
  it("invite and accept: the invitee joins with the invitation's role; only the hash is stored", async () => {
    const { workspace, members } = await teamWorkspace("10", ["owner"]);
    const invite = await members.owner!.caller.workspaces.invite({ role: "billing" });
    expect(invite.emailed).toBe(false);
    expect(new Date(invite.expiresAt).getTime() - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
    const row = await db.invitation.findUniqueOrThrow({ where: { id: invite.id } });
    expect(JSON.stringify(row)).not.toContain(invite.token);
    expect(row.tokenHash).toBe(hashInvitationToken(invite.token));

    const anonymous = await userCaller("nobody");
    expect(await anonymous.workspaces.invitationPreview({ token: invite.token })).toMatchObject({ workspaceName: "team workspace", role: "billing", status: "valid" });
    expect(await members.owner!.caller.workspaces.invitations()).toEqual([expect.objectContaining({ id: invite.id, role: "billing" })]);

    const invitee = await signedIn();
    expect(await invitee.caller.workspaces.acceptInvitation({ token: invite.token })).toEqual({ workspaceId: workspace.id, role: "billing", alreadyMember: false });
    expect(await (await userCaller(invitee.id, workspace.id)).workspaces.current()).toMatchObject({ role: "billing", members: 2 });
    expect(await members.owner!.caller.workspaces.invitations()).toEqual([]);
    expect((await anonymous.workspaces.invitationPreview({ token: invite.token })).status).toBe("used");
  });

  it("a token is single use: a second user cannot accept it, even racing", async () => {
    const { members } = await teamWorkspace("10", ["owner"]);
    const { token } = await members.owner!.caller.workspaces.invite({ role: "member" });
    const [a, b] = [await signedIn(), await signedIn()];
    const codes = await Promise.all([codeOf(a.caller.workspaces.acceptInvitation({ token })), codeOf(b.caller.workspaces.acceptInvitation({ token }))]);
    expect(codes.sort()).toEqual(["BAD_REQUEST", "OK"]);
    const c = await signedIn();
    expect(await codeOf(c.caller.workspaces.acceptInvitation({ token }))).toBe("BAD_REQUEST");
  });

  it("an existing member accepting keeps their role and consumes nothing", async () => {
    const { workspace, members } = await teamWorkspace("10", ["owner", "admin"]);
    const { id, token } = await members.owner!.caller.workspaces.invite({ role: "billing" });
    expect(await members.admin!.caller.workspaces.acceptInvitation({ token })).toEqual({ workspaceId: workspace.id, role: "admin", alreadyMember: true });
    expect((await db.invitation.findUniqueOrThrow({ where: { id } })).acceptedAt).toBeNull();
  });

  it("an expired invitation is refused", async () => {
    const { members } = await teamWorkspace("10", ["owner"]);
    const { id, token } = await members.owner!.caller.workspaces.invite({ role: "member" });
    await db.invitation.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const invitee = await signedIn();
    await expect(invitee.caller.workspaces.acceptInvitation({ token })).rejects.toMatchObject({ code: "BAD_REQUEST", cause: { code: "invitation_expired" } });
    expect((await invitee.caller.workspaces.invitationPreview({ token })).status).toBe("expired");
  });

  it("an unknown token is not found", async () => {
    const invitee = await signedIn();
    expect(await codeOf(invitee.caller.workspaces.acceptInvitation({ token: "gwinv_doesnotexist" }))).toBe("NOT_FOUND");
    expect(await codeOf(invitee.caller.workspaces.invitationPreview({ token: "gwinv_doesnotexist" }))).toBe("NOT_FOUND");
  });

  it("an invitation bound to an email is refused for another account, accepted by the right one", async () => {
    const { members } = await teamWorkspace("10", ["owner"]);
    const right = await signedIn();
    const { token } = await members.owner!.caller.workspaces.invite({ role: "member", email: right.email.toUpperCase() });
    const other = await signedIn();
    expect(await codeOf(other.caller.workspaces.acceptInvitation({ token }))).toBe("FORBIDDEN");
    expect((await right.caller.workspaces.acceptInvitation({ token })).role).toBe("member");
  });

  it("without SMTP an email invitation is created but not mailed; an existing member's email is a conflict", async () => {
    const { members } = await teamWorkspace("10", ["owner", "member"]);
    const invite = await members.owner!.caller.workspaces.invite({ role: "member", email: "someone@example.test" });
    expect(invite).toMatchObject({ emailed: false, emailNote: expect.stringContaining("SMTP") });
    expect(await codeOf(members.owner!.caller.workspaces.invite({ role: "admin", email: members.member!.email }))).toBe("CONFLICT");
  });

  it("a revoked invitation cannot be accepted; revoking is scoped to the workspace", async () => {
    const { members } = await teamWorkspace("10", ["owner"]);
    const other = await teamWorkspace("10", ["owner"]);
    const { id, token } = await members.owner!.caller.workspaces.invite({ role: "member" });
    expect(await codeOf(other.members.owner!.caller.workspaces.revokeInvitation({ id }))).toBe("NOT_FOUND");
    await members.owner!.caller.workspaces.revokeInvitation({ id });
    const invitee = await signedIn();
    expect(await codeOf(invitee.caller.workspaces.acceptInvitation({ token }))).toBe("NOT_FOUND");
  });

  it("admins cannot invite owners; members and billing cannot invite at all", async () => {
    const { members } = await teamWorkspace();
    expect(await codeOf(members.admin!.caller.workspaces.invite({ role: "owner" }))).toBe("FORBIDDEN");
    expect(await codeOf(members.admin!.caller.workspaces.invite({ role: "admin" }))).toBe("OK");
    expect(await codeOf(members.owner!.caller.workspaces.invite({ role: "owner" }))).toBe("OK");
    expect(await codeOf(members.member!.caller.workspaces.invite({ role: "member" }))).toBe("FORBIDDEN");
    expect(await codeOf(members.billing!.caller.workspaces.invitations())).toBe("FORBIDDEN");
  });
});

describe("roles and the last owner", () => {
  it("admins cannot change an owner's role nor make anyone an owner; owners can", async () => {
    const { members } = await teamWorkspace();
    const { admin, owner, member } = members as Required<typeof members>;
    expect(await codeOf(admin.caller.workspaces.changeRole({ userId: owner.id, role: "member" }))).toBe("FORBIDDEN");
    expect(await codeOf(admin.caller.workspaces.changeRole({ userId: member.id, role: "owner" }))).toBe("FORBIDDEN");
    expect((await admin.caller.workspaces.changeRole({ userId: member.id, role: "billing" })).role).toBe("billing");
    expect(await codeOf(member.caller.workspaces.changeRole({ userId: member.id, role: "admin" }))).toBe("FORBIDDEN");
    expect((await owner.caller.workspaces.changeRole({ userId: admin.id, role: "owner" })).role).toBe("owner");
    expect(await codeOf(owner.caller.workspaces.changeRole({ userId: "usr_missing", role: "member" }))).toBe("NOT_FOUND");
  });

  it("admins cannot remove owners; members cannot remove others; anyone can leave", async () => {
    const { workspace, members } = await teamWorkspace();
    const { admin, owner, member, billing } = members as Required<typeof members>;
    expect(await codeOf(admin.caller.workspaces.removeMember({ userId: owner.id }))).toBe("FORBIDDEN");
    expect(await codeOf(member.caller.workspaces.removeMember({ userId: billing.id }))).toBe("FORBIDDEN");
    expect(await admin.caller.workspaces.removeMember({ userId: billing.id })).toEqual({ userId: billing.id, left: false });
    expect(await member.caller.workspaces.leave()).toEqual({ userId: member.id, left: true });
    const left = await db.membership.findMany({ where: { workspaceId: workspace.id }, select: { userId: true } });
    expect(left.map((m) => m.userId).sort()).toEqual([admin.id, owner.id].sort());
    // A removed member loses access at once.
    expect(await codeOf((await userCaller(member.id, workspace.id)).workspaces.current())).toBe("NOT_FOUND");
  });

  it("the last owner can be neither removed, demoted, nor leave", async () => {
    const { members } = await teamWorkspace("10", ["owner", "admin"]);
    const { owner } = members as Required<typeof members>;
    await expect(owner.caller.workspaces.leave()).rejects.toMatchObject({ code: "CONFLICT", cause: { code: "last_owner" } });
    expect(await codeOf(owner.caller.workspaces.removeMember({ userId: owner.id }))).toBe("CONFLICT");
    expect(await codeOf(owner.caller.workspaces.changeRole({ userId: owner.id, role: "admin" }))).toBe("CONFLICT");
    expect((await owner.caller.workspaces.current()).role).toBe("owner");
  });

  it("two owners removing each other at the same time leave one owner", async () => {
    for (let round = 0; round < 5; round++) {
      const { workspace, members } = await teamWorkspace("10", ["owner"]);
      const second = await newUser();
      await db.membership.create({ data: { workspaceId: workspace.id, userId: second.id, role: "owner" } });
      const a = members.owner!;
      const b = { id: second.id, caller: await userCaller(second.id, workspace.id) };
      const codes = await Promise.all([
        codeOf(a.caller.workspaces.removeMember({ userId: b.id })),
        codeOf(b.caller.workspaces.removeMember({ userId: a.id })),
      ]);
      expect(codes.filter((c) => c === "OK")).toHaveLength(1);
      expect(await db.membership.count({ where: { workspaceId: workspace.id, role: "owner" } })).toBe(1);
    }
  });

  it("two owners leaving or demoting themselves at the same time leave one owner", async () => {
    const { workspace, members } = await teamWorkspace("10", ["owner"]);
    const second = await newUser();
    await db.membership.create({ data: { workspaceId: workspace.id, userId: second.id, role: "owner" } });
    const b = await userCaller(second.id, workspace.id);
    await Promise.all([codeOf(members.owner!.caller.workspaces.leave()), codeOf(b.workspaces.changeRole({ userId: second.id, role: "member" }))]);
    expect(await db.membership.count({ where: { workspaceId: workspace.id, role: "owner" } })).toBe(1);
  });
});
