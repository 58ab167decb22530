// Plans, sessions, budgets and plan/subject usage filters as dashboard members see them (tRPC
// callers as signed-in users), on the real database. Spend counters and usage events are written
// with prisma as setup: how the request path fills them is tested elsewhere.
import { chargeUsage } from "../helpers-usage";
import { describe, expect, it } from "vitest";
import { mintSession } from "../../server/identity/sessions/mint-session";
import { db } from "../../server/infra/db/client";
import { newId } from "../../server/kernel/ids";
import { teamWorkspace } from "../helpers-dashboard";

const day = () => new Date().toISOString().slice(0, 10);
const month = () => new Date().toISOString().slice(0, 7);
const HOUR = 3_600_000;

async function counter(workspaceId: string, name: string, spent: string) {
  await db.spendCounter.create({ data: { workspaceId, counter: name, spent } });
}

async function session(workspaceId: string, planId: string, subject: string, opts: { expiresIn?: number; revoked?: boolean; createdAgo?: number } = {}) {
  return db.planSession.create({
    data: {
      id: newId("sess"),
      workspaceId,
      planId,
      subject,
      createdAt: new Date(Date.now() - (opts.createdAgo ?? 0)),
      expiresAt: new Date(Date.now() + (opts.expiresIn ?? HOUR)),
      revokedAt: opts.revoked ? new Date() : null,
    },
  });
}

let eventClock = Date.now() - HOUR;
/** A usage event, each a millisecond after the previous one (so "newest first" is well defined). */
async function usageEvent(workspaceId: string, data: { planId?: string; subject?: string; cost: string }) {
  return chargeUsage([
    { workspaceId, modelId: "local-chat-sim", endpoint: "/v1/chat/completions", inputTokens: 10, outputTokens: 5, createdAt: new Date(++eventClock), ...data },
  ]);
}

describe("dashboard: plans", () => {
  it("owners and admins create, edit and delete plans; members and billing only read them", async () => {
    const { members } = await teamWorkspace("1", ["owner", "admin", "member", "billing"]);
    const admin = members.admin!.caller;
    await expect(members.member!.caller.plans.create({ name: "nope" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(members.billing!.caller.plans.create({ name: "nope" })).rejects.toMatchObject({ code: "FORBIDDEN" });

    const pro = await admin.plans.create({ name: "Pro", models: ["local-chat-sim"], rpm: 60, daily_cap: "1.50", monthly_cap: "20", max_ttl_seconds: 7200 });
    expect(pro).toMatchObject({ name: "Pro", models: ["local-chat-sim"], rpm: 60, tpm: null, daily_cap: "1.5", monthly_cap: "20", max_ttl_seconds: 7200 });
    await expect(admin.plans.create({ name: "Pro" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const free = await members.owner!.caller.plans.create({ name: "Free" });

    const listed = await members.member!.caller.plans.list();
    expect(listed.map((p) => [p.name, p.alive_sessions])).toEqual([["Pro", 0], ["Free", 0]]);

    await expect(members.member!.caller.plans.update({ id: pro.id, rpm: 1 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const edited = await admin.plans.update({ id: pro.id, rpm: null, tpm: 5000, daily_cap: null });
    expect(edited).toMatchObject({ rpm: null, tpm: 5000, daily_cap: null, monthly_cap: "20", name: "Pro" });

    await expect(members.member!.caller.plans.delete({ id: free.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await admin.plans.delete({ id: free.id });
    expect((await admin.plans.list()).map((p) => p.name)).toEqual(["Pro"]);
  });

  it("lists alive sessions per plan; revoking one session or a subject's sessions ends them", async () => {
    const { workspace, members } = await teamWorkspace("1", ["owner", "member"]);
    const owner = members.owner!.caller;
    const a = await owner.plans.create({ name: "A" });
    const b = await owner.plans.create({ name: "B" });
    const minted = await mintSession({ workspaceId: workspace.id, keyId: null }, { plan: a.id, subject: "alice" });
    await mintSession({ workspaceId: workspace.id, keyId: null }, { plan: a.id, subject: "bob" });
    await session(workspace.id, b.id, "alice");
    await session(workspace.id, a.id, "expired", { expiresIn: -1000 });
    await session(workspace.id, a.id, "revoked", { revoked: true });

    const counts = async () => Object.fromEntries((await owner.plans.list()).map((p) => [p.name, p.alive_sessions]));
    expect(await counts()).toEqual({ A: 2, B: 1 });
    const ofA = await members.member!.caller.plans.sessions({ plan: a.id });
    expect(ofA.map((s) => s.subject).sort()).toEqual(["alice", "bob"]);
    expect(ofA.find((s) => s.id === minted.id)).toMatchObject({ plan: a.id, subject: "alice", revoked_at: null });

    await expect(members.member!.caller.plans.revokeSession({ id: minted.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await owner.plans.revokeSession({ id: minted.id })).revoked_at).not.toBeNull();
    expect(await counts()).toEqual({ A: 1, B: 1 });

    await expect(members.member!.caller.plans.revokeSubject({ subject: "alice" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await owner.plans.revokeSubject({ subject: "alice" })).toMatchObject({ subject: "alice", revoked: 1 });
    expect(await counts()).toEqual({ A: 1, B: 0 });
    expect((await owner.plans.sessions({ plan: a.id })).map((s) => s.subject)).toEqual(["bob"]);
  });

  it("through the dashboard's tRPC endpoint, only owners and admins mint or revoke session tokens (FORBIDDEN for members and billing, nothing minted)", async () => {
    const { workspace, members } = await teamWorkspace();
    const plan = await members.owner!.caller.plans.create({ name: "app users" });
    for (const role of ["member", "billing"] as const) {
      const caller = members[role]!.caller;
      await expect(caller.sessions.create({ plan: plan.id, subject: "u" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(caller.sessions.revokeSubject({ subject: "u" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    expect(await db.planSession.count({ where: { workspaceId: workspace.id } })).toBe(0);
    const minted = await members.admin!.caller.sessions.create({ plan: plan.id, subject: "u" });
    expect(minted).toMatchObject({ object: "session", plan: plan.id, subject: "u" });
    await expect(members.member!.caller.sessions.revoke({ id: minted.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await members.owner!.caller.sessions.revoke({ id: minted.id })).toMatchObject({ id: minted.id });
  });

  it("another workspace's plans, sessions and issuers are not found", async () => {
    const mine = (await teamWorkspace("1", ["owner"])).members.owner!.caller;
    const theirs = await teamWorkspace("1", ["owner"]);
    const plan = await theirs.members.owner!.caller.plans.create({ name: "Theirs" });
    const s = await session(theirs.workspace.id, plan.id, "someone");
    const { key } = await mine.keys.create({ name: "mine" });

    await expect(mine.plans.update({ id: plan.id, rpm: 1 })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(mine.plans.delete({ id: plan.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(mine.plans.revokeSession({ id: s.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await mine.plans.sessions({ plan: plan.id })).toEqual([]);
    expect(await mine.plans.revokeSubject({ subject: "someone" })).toMatchObject({ revoked: 0 });
    await expect(mine.keys.setPlan({ id: key.id, planId: plan.id })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(mine.keys.create({ name: "x", planId: plan.id })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const issuer = await theirs.members.owner!.caller.plans.addIssuer({
      issuer: `https://idp-${plan.id}.example.test/`,
      jwks_url: "https://idp.example.test/jwks.json",
      audience: "gateway",
    });
    await expect(mine.plans.removeIssuer({ id: issuer.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await mine.plans.issuers()).toEqual([]);
    expect((await db.planSession.findUniqueOrThrow({ where: { id: s.id } })).revokedAt).toBeNull();
  });

  it("a JWKS URL the outbound guard refuses (http, loopback, private, metadata, localhost) is a 400 that says why; nothing is stored", async () => {
    const owner = (await teamWorkspace("1", ["owner"])).members.owner!.caller;
    const cases: [string, string][] = [
      ["http://127.0.0.2:9/jwks", "plain http is not allowed"],
      ["https://127.0.0.2:9/jwks", "it points at a loopback address (127.0.0.2)"],
      ["https://10.0.0.1/jwks", "it points at a private-network address (10.0.0.1)"],
      ["https://169.254.169.254/latest/meta-data/", "it points at a link-local address"],
      ["https://[::ffff:127.0.0.2]/jwks", "it points at a loopback address"],
      ["https://localhost:8443/jwks", "it points at localhost"],
      ["http://idp.example.test/jwks", "plain http is not allowed"],
    ];
    for (const [jwks_url, why] of cases) {
      await expect(owner.plans.addIssuer({ issuer: "https://idp.example.test/", jwks_url, audience: "gateway" }), jwks_url).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringContaining(why),
        cause: { status: 400, code: "url_not_allowed", param: "jwks_url" },
      });
    }
    expect(await owner.plans.issuers()).toEqual([]);
  });

  it("keys are put on a plan at creation or later, by owners and admins only", async () => {
    const { members } = await teamWorkspace("1", ["owner", "member"]);
    const plan = await members.owner!.caller.plans.create({ name: "Keys" });
    // A plan's limits replace the workspace's defaults: a member may not choose one for a key.
    await expect(members.member!.caller.keys.create({ name: "on a plan", planId: plan.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const { key } = await members.owner!.caller.keys.create({ name: "on a plan", planId: plan.id });
    expect(key.planId).toBe(plan.id);
    await expect(members.member!.caller.keys.setPlan({ id: key.id, planId: null })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await members.owner!.caller.keys.setPlan({ id: key.id, planId: null })).planId).toBeNull();
    expect((await members.owner!.caller.keys.setPlan({ id: key.id, planId: plan.id })).planId).toBe(plan.id);
  });
});

describe("dashboard: budgets", () => {
  it("shows what keys and subjects spent today and this month against their plan's caps", async () => {
    const { workspace, members } = await teamWorkspace("1", ["owner", "billing"]);
    const owner = members.owner!.caller;
    const capped = await owner.plans.create({ name: "Capped", daily_cap: "1", monthly_cap: "10.5" });
    const dailyOnly = await owner.plans.create({ name: "Daily only", daily_cap: "0.000000000000000003" });
    const uncapped = await owner.plans.create({ name: "Uncapped" });
    const k1 = (await owner.keys.create({ name: "k1", planId: capped.id })).key;
    const k2 = (await owner.keys.create({ name: "k2", planId: dailyOnly.id })).key;
    await owner.keys.create({ name: "uncapped", planId: uncapped.id });
    await owner.keys.create({ name: "no plan" });
    const revoked = (await owner.keys.create({ name: "revoked", planId: capped.id })).key;
    await owner.keys.revoke({ id: revoked.id });
    const ws = workspace.id;
    await counter(ws, `key:${k1.id}|day:${day()}`, "0.25");
    await counter(ws, `key:${k1.id}|month:${month()}`, "12.000000000000000001");
    await counter(ws, `key:${k1.id}|day:2000-01-01`, "99");
    await counter(ws, `key:${k2.id}|day:${day()}`, "0.000000000000000001");
    // Subjects: "carol" has an alive session under Capped (an older one under Daily only) and
    // spent this month; "dave" spent this month but has no alive session; "erin" only has a session;
    // "frank" spent only in another month; "x|y" holds the separator in its name.
    await session(ws, dailyOnly.id, "carol", { createdAgo: 2 * HOUR });
    await session(ws, capped.id, "carol", { createdAgo: HOUR });
    await session(ws, uncapped.id, "carol", { revoked: true });
    await session(ws, uncapped.id, "erin");
    await session(ws, capped.id, "x|y");
    await counter(ws, `subject:carol|day:${day()}`, "0.4");
    await counter(ws, `subject:carol|month:${month()}`, "3.4");
    await counter(ws, `subject:dave|month:${month()}`, "7");
    await counter(ws, `subject:frank|month:2000-01`, "5");
    await counter(ws, `subject:x|y|day:${day()}`, "2");
    await counter(ws, `subject:x|y|month:${month()}`, "2");

    const o = await members.billing!.caller.plans.budgets();
    expect(o).toMatchObject({ day: day(), month: month(), subjectsTruncated: false });
    expect(o.keys).toEqual([
      { keyId: k1.id, name: "k1", planId: capped.id, daily: { cap: "1", spent: "0.25", left: "0.75" }, monthly: { cap: "10.5", spent: "12.000000000000000001", left: "0" } },
      {
        keyId: k2.id,
        name: "k2",
        planId: dailyOnly.id,
        daily: { cap: "0.000000000000000003", spent: "0.000000000000000001", left: "0.000000000000000002" },
        monthly: { cap: null, spent: "0", left: null },
      },
    ]);
    expect(o.subjects).toEqual([
      { subject: "dave", planId: null, daily: { cap: null, spent: "0", left: null }, monthly: { cap: null, spent: "7", left: null } },
      { subject: "carol", planId: capped.id, daily: { cap: "1", spent: "0.4", left: "0.6" }, monthly: { cap: "10.5", spent: "3.4", left: "7.1" } },
      { subject: "x|y", planId: capped.id, daily: { cap: "1", spent: "2", left: "0" }, monthly: { cap: "10.5", spent: "2", left: "8.5" } },
      { subject: "erin", planId: uncapped.id, daily: { cap: null, spent: "0", left: null }, monthly: { cap: null, spent: "0", left: null } },
    ]);
  });

  it("another workspace's counters and sessions are not counted", async () => {
    const mine = await teamWorkspace("1", ["owner"]);
    const theirs = await teamWorkspace("1", ["owner"]);
    const plan = await theirs.members.owner!.caller.plans.create({ name: "T", daily_cap: "1" });
    await session(theirs.workspace.id, plan.id, "zed");
    await counter(theirs.workspace.id, `subject:zed|month:${month()}`, "1");
    expect(await mine.members.owner!.caller.plans.budgets()).toMatchObject({ keys: [], subjects: [] });
  });
});

describe("dashboard: usage by plan and subject", () => {
  it("summary, events and CSV honour the plan and subject filters; the CSV carries both columns", async () => {
    const { workspace, members } = await teamWorkspace("1", ["owner", "member"]);
    const owner = members.owner!.caller;
    const gold = await owner.plans.create({ name: "Gold" });
    const silver = await owner.plans.create({ name: "Silver" });
    const ws = workspace.id;
    await usageEvent(ws, { planId: gold.id, subject: "ann", cost: "0.1" });
    await usageEvent(ws, { planId: gold.id, subject: "=cmd|ben", cost: "0.02" });
    await usageEvent(ws, { planId: silver.id, subject: "ann", cost: "0.003" });
    await usageEvent(ws, { cost: "1" });

    const member = members.member!.caller;
    expect((await member.usage.summary({})).totals).toMatchObject({ requests: 4, cost: "1.123" });
    expect((await member.usage.summary({ planId: gold.id })).totals).toMatchObject({ requests: 2, cost: "0.12" });
    expect((await member.usage.summary({ subject: "ann" })).totals).toMatchObject({ requests: 2, cost: "0.103" });
    expect((await member.usage.summary({ planId: gold.id, subject: "ann" })).totals).toMatchObject({ requests: 1, cost: "0.1" });
    expect((await member.usage.summary({ subject: "nobody" })).totals.requests).toBe(0);

    const events = (await member.usage.events({ subject: "ann" })).events;
    expect(events.map((e) => [e.plan, e.subject])).toEqual([
      [{ id: silver.id, name: "Silver" }, "ann"],
      [{ id: gold.id, name: "Gold" }, "ann"],
    ]);
    const unplanned = (await member.usage.events({})).events.find((e) => e.cost === "1");
    expect(unplanned).toMatchObject({ plan: null, subject: null });

    const { csv, rows } = await member.usage.exportCsv({ planId: gold.id });
    const lines = csv.split("\r\n").filter(Boolean);
    // The plan and subject columns follow latency_ms; the cache-write, estimated, tags and response cache columns come after them.
    expect(lines[0]).toMatch(/,latency_ms,plan_id,subject,cache_write_tokens,usage_estimated,tags,cache_hit,cache_saved_usd$/);
    expect(rows).toBe(2);
    expect(lines.slice(1).map((l) => l.split(",").slice(-7, -5))).toEqual([
      [gold.id, "'=cmd|ben"],
      [gold.id, "ann"],
    ]);
    const all = (await member.usage.exportCsv({})).csv.split("\r\n").filter(Boolean);
    expect(all.some((l) => l.endsWith(",,0,false,,false,0"))).toBe(true);
  });

  it("a plan id of another workspace shows nothing", async () => {
    const mine = await teamWorkspace("1", ["owner"]);
    const theirs = await teamWorkspace("1", ["owner"]);
    const plan = await theirs.members.owner!.caller.plans.create({ name: "Theirs" });
    await usageEvent(theirs.workspace.id, { planId: plan.id, subject: "ann", cost: "1" });
    const caller = mine.members.owner!.caller;
    expect((await caller.usage.summary({ planId: plan.id })).totals.requests).toBe(0);
    expect((await caller.usage.events({ subject: "ann" })).events).toEqual([]);
    expect((await caller.usage.exportCsv({ planId: plan.id })).rows).toBe(0);
  });
});
