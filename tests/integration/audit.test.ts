// The audit log: every kind of change made through the dashboard's procedures and the CLI writes
// one event with its actor, target and changed fields, never a secret; only owners and admins
// read it, and only their own workspace's events.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit, type AuditEventView } from "../../server/audit/list-audit";
import { db } from "../../server/infra/db/client";
import { mintSession } from "../../server/identity/sessions/mint-session";
import { Channel, notify } from "../../server/infra/db/notify";
import { cli } from "../cli-process";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { newUser, teamWorkspace, userCaller } from "../helpers-dashboard";

const NODE_KEY = "sk-node-upstream-secret-do-not-log";
let fake: FakeUpstream;

beforeAll(async () => {
  fake = await startFakeUpstream("test-audit-upstream-only");
});

afterAll(async () => {
  await db.node.deleteMany({ where: { baseUrl: fake.url } });
  await notify(db, Channel.nodesChanged);
  await fake?.close();
});

/** The newest event of `action` in a workspace (null: the gateway-wide ones). */
async function latest(workspaceId: string | null, action: string): Promise<AuditEventView> {
  const { events } = await listAudit(workspaceId, { action, limit: 1 });
  expect(events, action).toHaveLength(1);
  return events[0]!;
}

const unique = (p: string) => `${p}-${Math.random().toString(36).slice(2, 8)}`;

describe("audit: one event per change, with actor, target and changed fields", () => {
  it("keys: create, update (plan), revoke; the key's secret appears nowhere", async () => {
    const { workspace, members } = await teamWorkspace();
    const admin = members.admin!;
    const plan = await admin.caller.plans.create({ name: "Keys plan" });
    const { key, secret } = await admin.caller.keys.create({ name: "audited", spendLimit: "5", models: ["local-chat-sim"] });

    const created = await latest(workspace.id, "key.create");
    expect(created).toMatchObject({
      workspace_id: workspace.id,
      actor: { type: "user", id: admin.id, name: admin.email },
      target: { type: "key", id: key.id },
      changes: { name: { from: null, to: "audited" }, spend_limit: { from: null, to: "5" }, models: { from: null, to: ["local-chat-sim"] } },
    });

    await admin.caller.keys.setPlan({ id: key.id, planId: plan.id });
    expect(await latest(workspace.id, "key.update")).toMatchObject({ target: { id: key.id }, changes: { plan: { from: null, to: plan.id } } });

    await admin.caller.keys.revoke({ id: key.id });
    const revoked = await latest(workspace.id, "key.revoke");
    expect(revoked).toMatchObject({ target: { id: key.id }, changes: { revoked_at: { from: null, to: expect.any(String) } } });

    const all = JSON.stringify(await db.auditEvent.findMany({ where: { workspaceId: workspace.id } }));
    expect(all).not.toContain(secret);
    expect(all).not.toContain(secret.slice(8));
  });

  it("members and invitations: role change, removal, invitation made and withdrawn (never its token)", async () => {
    const { workspace, members } = await teamWorkspace();
    const owner = members.owner!;
    await owner.caller.workspaces.changeRole({ userId: members.member!.id, role: "billing" });
    expect(await latest(workspace.id, "member.role_change")).toMatchObject({
      actor: { type: "user", id: owner.id },
      target: { type: "member", id: members.member!.id },
      changes: { role: { from: "member", to: "billing" } },
    });

    await owner.caller.workspaces.removeMember({ userId: members.billing!.id });
    expect(await latest(workspace.id, "member.remove")).toMatchObject({
      target: { type: "member", id: members.billing!.id },
      changes: { role: { from: "billing", to: null }, left: { to: false } },
    });

    const invite = await owner.caller.workspaces.invite({ role: "admin", email: "new.person@example.test" });
    expect(await latest(workspace.id, "invitation.create")).toMatchObject({
      target: { type: "invitation", id: invite.id },
      changes: { role: { from: null, to: "admin" }, email: { from: null, to: "new.person@example.test" }, expires_at: { to: invite.expiresAt } },
    });
    await owner.caller.workspaces.revokeInvitation({ id: invite.id });
    expect(await latest(workspace.id, "invitation.revoke")).toMatchObject({ target: { id: invite.id }, changes: { role: { from: "admin", to: null } } });

    const hash = (await db.invitation.findMany({ where: { workspaceId: workspace.id } })).map((i) => i.tokenHash);
    const all = JSON.stringify(await db.auditEvent.findMany({ where: { workspaceId: workspace.id } }));
    expect(all).not.toContain(invite.token);
    for (const h of hash) expect(all).not.toContain(h);
  });

  it("plans: create, update (only the changed fields), delete", async () => {
    const { workspace, members } = await teamWorkspace();
    const caller = members.owner!.caller;
    const plan = await caller.plans.create({ name: "Pro", rpm: 60, daily_cap: "2.5" });
    expect(await latest(workspace.id, "plan.create")).toMatchObject({
      target: { type: "plan", id: plan.id },
      changes: { name: { from: null, to: "Pro" }, rpm: { from: null, to: 60 }, daily_cap: { from: null, to: "2.5" }, max_ttl_seconds: { from: null, to: 3600 } },
    });
    await caller.plans.update({ id: plan.id, rpm: 120, name: "Pro" });
    const updated = await latest(workspace.id, "plan.update");
    expect(updated.changes).toEqual({ rpm: { from: 60, to: 120 } });
    await caller.plans.delete({ id: plan.id });
    expect(await latest(workspace.id, "plan.delete")).toMatchObject({ target: { id: plan.id }, changes: { name: { from: "Pro", to: null }, rpm: { from: 120, to: null } } });
  });

  it("issuers: add and remove", async () => {
    const { workspace, members } = await teamWorkspace();
    const caller = members.admin!.caller;
    const issuer = await caller.plans.addIssuer({ issuer: `https://${unique("idp")}.example.test/`, jwks_url: "https://idp.example.test/jwks.json", audience: "gateway" });
    expect(await latest(workspace.id, "issuer.add")).toMatchObject({
      target: { type: "issuer", id: issuer.id },
      changes: { issuer: { from: null, to: issuer.issuer }, jwks_url: { to: "https://idp.example.test/jwks.json" }, audience: { to: "gateway" } },
    });
    await caller.plans.removeIssuer({ id: issuer.id });
    expect(await latest(workspace.id, "issuer.remove")).toMatchObject({ target: { id: issuer.id }, changes: { issuer: { from: issuer.issuer, to: null } } });
  });

  it("workspace settings (rename) and credits added by an operator", async () => {
    const { workspace, members } = await teamWorkspace();
    await members.admin!.caller.workspaces.rename({ name: "Renamed team" });
    expect(await latest(workspace.id, "workspace.rename")).toMatchObject({
      target: { type: "workspace", id: workspace.id },
      changes: { name: { from: "team workspace", to: "Renamed team" } },
    });

    const op = await newUser({ operator: true });
    await (await userCaller(op.id)).billing.addCredits({ workspaceId: workspace.id, amount: "7.5", note: "top-up" });
    expect(await latest(workspace.id, "credits.add")).toMatchObject({
      actor: { type: "user", id: op.id, name: op.email },
      changes: { amount: { from: null, to: "7.5" }, note: { to: "top-up" }, balance: { from: "10", to: "17.5" } },
    });
  });

  it("nodes: add, update, remove are gateway-wide events, the node's API key only as [secret]", async () => {
    const op = await newUser({ operator: true });
    const caller = await userCaller(op.id);
    const name = unique("audit-node");
    const { node } = await caller.nodes.create({ name, url: fake.url, apiKey: NODE_KEY, city: "Lisbon", country: "PT" });
    const added = await latest(null, "node.add");
    expect(added).toMatchObject({
      workspace_id: null,
      actor: { type: "user", id: op.id },
      target: { type: "node", id: node.id },
      changes: { name: { from: null, to: name }, city: { to: "Lisbon" }, country: { to: "PT" }, api_key: { from: null, to: "[secret]" } },
    });

    await caller.nodes.update({ id: node.id, weight: 3, apiKey: `${NODE_KEY}-2` });
    const updated = await latest(null, "node.update");
    expect(updated).toMatchObject({ target: { id: node.id }, changes: { weight: { from: 1, to: 3 }, api_key: { from: "[secret]", to: "[secret]" } } });
    expect(updated.changes.city).toBeUndefined();

    await caller.nodes.remove({ id: node.id });
    expect(await latest(null, "node.remove")).toMatchObject({ target: { id: node.id }, changes: { name: { from: name, to: null }, api_key: { from: "[secret]", to: null } } });

    const rows = JSON.stringify(await db.auditEvent.findMany({ where: { targetId: node.id } }));
    expect(rows).not.toContain(NODE_KEY);
    expect(rows).not.toMatch(/apiKeyEncrypted/);
  });
});

describe("audit: who may read it", () => {
  it("webhooks: create, update, secret rotation, delete; the signing secret only as [secret]", async () => {
    const { workspace, members } = await teamWorkspace();
    const admin = members.admin!;
    const hook = await admin.caller.webhooks.create({ url: "http://127.0.0.1:9/hook", events: ["node.down"] });
    expect(await latest(workspace.id, "webhook.create")).toMatchObject({
      actor: { type: "user", id: admin.id },
      target: { type: "webhook", id: hook.id },
      changes: { url: { from: null, to: "http://127.0.0.1:9/hook" }, events: { from: null, to: ["node.down"] }, secret: { from: null, to: "[secret]" } },
    });
    await admin.caller.webhooks.update({ id: hook.id, events: ["node.down", "node.up"] });
    const updated = await latest(workspace.id, "webhook.update");
    expect(updated.changes).toEqual({ events: { from: ["node.down"], to: ["node.down", "node.up"] } });
    const rotated = await admin.caller.webhooks.rotateSecret({ id: hook.id });
    expect((await latest(workspace.id, "webhook.rotate_secret")).changes).toEqual({ secret: { from: "[secret]", to: "[secret]" } });
    await admin.caller.webhooks.delete({ id: hook.id });
    expect((await latest(workspace.id, "webhook.delete")).changes).toMatchObject({ url: { from: "http://127.0.0.1:9/hook", to: null }, secret: { from: "[secret]", to: null } });
    const all = JSON.stringify(await db.auditEvent.findMany({ where: { workspaceId: workspace.id } }));
    for (const secret of [hook.secret, rotated.secret]) expect(all).not.toContain(secret);
  });

  it("owners and admins list and export it; members and billing are refused", async () => {
    const { workspace, members } = await teamWorkspace();
    await members.owner!.caller.workspaces.rename({ name: "Who reads, me" });
    for (const role of ["owner", "admin"] as const) {
      const page = await members[role]!.caller.audit.list({});
      expect(page.events.map((e) => e.action), role).toContain("workspace.rename");
      const { csv, rows } = await members[role]!.caller.audit.exportCsv({});
      expect(rows).toBeGreaterThan(0);
      expect(csv.split("\r\n")[0]).toBe("time,actor_type,actor,action,target_type,target_id,changes");
      expect(csv).toContain(`workspace.rename,workspace,${workspace.id},"{""name"":{""from"":""team workspace"",""to"":""Who reads, me""}}"`);
    }
    for (const role of ["member", "billing"] as const) {
      await expect(members[role]!.caller.audit.list({}), role).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(members[role]!.caller.audit.exportCsv({}), role).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
  });

  it("opening a workspace and revoking sessions (one, and all of a subject's)", async () => {
    const founder = await newUser({ name: "founder" });
    const opened = await (await userCaller(founder.id)).workspaces.create({ name: "Fresh team" });
    expect(await latest(opened.id, "workspace.create")).toMatchObject({
      actor: { type: "user", id: founder.id },
      target: { type: "workspace", id: opened.id },
      changes: { name: { from: null, to: "Fresh team" }, owner: { from: null, to: founder.id } },
    });

    const { workspace, members } = await teamWorkspace();
    const caller = members.admin!.caller;
    const plan = await caller.plans.create({ name: "Sessions" });
    const minter = { workspaceId: workspace.id, keyId: null, planId: null, grant: null };
    const one = await mintSession(minter, { plan: plan.id, subject: "user-1" });
    await mintSession(minter, { plan: plan.id, subject: "user-2" });
    await mintSession(minter, { plan: plan.id, subject: "user-2" });
    await caller.plans.revokeSession({ id: one.id });
    const revoked = await latest(workspace.id, "session.revoke");
    expect(revoked).toMatchObject({ actor: { type: "user", id: members.admin!.id }, target: { type: "session", id: one.id }, changes: { subject: { to: "user-1" } } });
    expect(revoked.changes.revoked_at?.to).toEqual(expect.any(String));
    await caller.plans.revokeSubject({ subject: "user-2" });
    expect(await latest(workspace.id, "session.revoke_subject")).toMatchObject({ target: { type: "subject", id: "user-2" }, changes: { revoked: { from: null, to: 2 } } });
    // Revoking what is already revoked changes nothing, and records nothing.
    await caller.plans.revokeSession({ id: one.id });
    expect((await listAudit(workspace.id, { action: "session.revoke", limit: 10 })).events.filter((e) => e.action === "session.revoke")).toHaveLength(1);
  });

  it("another workspace's events are never listed, whatever the filter or cursor", async () => {
    const mine = await teamWorkspace();
    const theirs = await teamWorkspace();
    await theirs.members.owner!.caller.plans.create({ name: "Their secret plan" });
    await mine.members.owner!.caller.plans.create({ name: "My plan" });
    const page = await mine.members.owner!.caller.audit.list({ limit: 500 });
    expect(page.events.length).toBeGreaterThan(0);
    expect(page.events.every((e) => e.workspace_id === mine.workspace.id)).toBe(true);
    expect(JSON.stringify(page)).not.toContain("Their secret plan");
    const { csv } = await mine.members.owner!.caller.audit.exportCsv({ action: "plan." });
    expect(csv).not.toContain("Their secret plan");
  });

  it("pages newest first with a keyset cursor, never repeating or skipping an event", async () => {
    const { workspace, members } = await teamWorkspace();
    const caller = members.owner!.caller;
    for (let i = 1; i <= 5; i++) await caller.plans.create({ name: `Plan ${i}` });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await caller.audit.list({ action: "plan.", limit: 2, cursor });
      seen.push(...page.events.map((e) => String(e.changes.name?.to)));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(["Plan 5", "Plan 4", "Plan 3", "Plan 2", "Plan 1"]);
    const all = await listAudit(workspace.id, { limit: 500 });
    const times = all.events.map((e) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });
});

describe("audit: the CLI", () => {
  async function json(...args: string[]) {
    const r = await cli(...args, "--json");
    expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    return JSON.parse(r.stdout);
  }

  it("changes made with the CLI are recorded as cli with the OS user, and `audit` lists them newest first", async () => {
    const ws = (await json("workspace", "create", "--name", "CLI audit")).workspace.id;
    const { key } = await json("key", "create", ws, "--name", "cli-key");
    await json("plan", "create", ws, "--name", "CLI plan", "--rpm", "10");
    await json("credits", "add", ws, "3");

    const { events } = await json("audit", ws);
    expect(events.map((e: { action: string }) => e.action).slice(0, 3)).toEqual(["credits.add", "plan.create", "key.create"]);
    for (const e of events.slice(0, 3)) {
      expect(Object.keys(e).sort()).toEqual(["action", "actor", "changes", "created_at", "target"]);
      expect(e.actor).toEqual({ type: "cli", id: null, name: expect.stringMatching(/\S/) });
    }
    expect(events[2]).toMatchObject({ target: { type: "key", id: key.id }, changes: { name: { from: null, to: "cli-key" } } });
    expect(events[1].changes.rpm).toEqual({ from: null, to: 10 });
    expect(Date.parse(events[0].created_at)).toBeGreaterThanOrEqual(Date.parse(events[1].created_at));

    const limited = await json("audit", ws, "--limit", "1");
    expect(limited.events).toHaveLength(1);
    expect(limited.events[0].action).toBe("credits.add");
    const keysOnly = await json("audit", ws, "--action", "key.");
    // The workspace's first key was made by `workspace create` itself (the gateway), then ours.
    expect(keysOnly.events.map((e: { action: string; actor: { type: string } }) => `${e.action} ${e.actor.type}`)).toEqual(["key.create cli", "key.create system"]);

    const text = await cli("audit", ws);
    expect(text.stdout).toMatch(/cli \(\S+\)\s+credits\.add/);
    const bad = await cli("audit", ws, "--limit", "0");
    expect(bad.code).toBe(2);
    const unknown = await cli("audit", "ws_doesnotexist");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No workspace");
  }, 120_000);
});
