// Keys, usage and billing as dashboard members see them (tRPC callers as signed-in users), with
// real calls through the gateway made with the official SDK.
import { APIError } from "openai";
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { formatMoney, money } from "../../server/kernel/money";
import { newUser, teamWorkspace, userCaller } from "../helpers-dashboard";
import { client, raw, until } from "../helpers";

const MODEL = "local-chat-sim";
const today = () => new Date().toISOString().slice(0, 10);
const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

async function chat(secret: string, content = "hello there") {
  return client(secret).chat.completions.create({ model: MODEL, messages: [{ role: "user", content }] });
}

async function sumOfEvents(where: { workspaceId: string; apiKeyId?: string }) {
  const events = await db.usageEvent.findMany({ where });
  return { count: events.length, cost: formatMoney(events.reduce((s, e) => s.plus(e.cost.toString()), money(0))) };
}

describe("dashboard: API keys", () => {
  it("create returns the secret once; the list never includes it", async () => {
    const { members } = await teamWorkspace("1", ["owner"]);
    const owner = members.owner!;
    const { key, secret } = await owner.caller.keys.create({ name: "ci", spendLimit: "2.5" });
    expect(secret).toMatch(/^sk-gw-/);
    expect(key).toMatchObject({ name: "ci", spendLimit: "2.5", spent: "0", createdBy: { email: owner.email }, revokedAt: null });
    expect(secret.startsWith(key.prefix)).toBe(true);
    const list = await owner.caller.keys.list();
    expect(list.map((k) => k.id)).toContain(key.id);
    expect(JSON.stringify(list)).not.toContain(secret);
  });

  it("a member may revoke only the keys they created; admins revoke any", async () => {
    const { members } = await teamWorkspace("1", ["owner", "admin", "member"]);
    const ownerKey = await members.owner!.caller.keys.create({ name: "owner's" });
    const own = await members.member!.caller.keys.create({ name: "member's" });
    await expect(members.member!.caller.keys.revoke({ id: ownerKey.key.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await members.member!.caller.keys.revoke({ id: own.key.id })).revokedAt).not.toBeNull();
    expect((await members.admin!.caller.keys.revoke({ id: ownerKey.key.id })).revokedAt).not.toBeNull();
  });

  it("the billing role sees keys but cannot create or revoke them", async () => {
    const { members } = await teamWorkspace("1", ["owner", "billing"]);
    const k = await members.owner!.caller.keys.create({ name: "x" });
    await expect(members.billing!.caller.keys.create({ name: "nope" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(members.billing!.caller.keys.revoke({ id: k.key.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await members.billing!.caller.keys.list()).map((x) => x.id)).toContain(k.key.id);
  });

  it("a spend limit must be a positive decimal", async () => {
    const { members } = await teamWorkspace("1", ["owner"]);
    for (const spendLimit of ["0", "-1", "1e3", "abc"]) {
      await expect(members.owner!.caller.keys.create({ name: "bad", spendLimit })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
  });
});

describe("dashboard: usage", () => {
  it("summary, events and CSV reflect the calls made, with exact cost sums and working filters", async () => {
    const { workspace, members } = await teamWorkspace("5", ["owner"]);
    const owner = members.owner!.caller;
    const a = await owner.keys.create({ name: "alpha, the first" });
    const b = await owner.keys.create({ name: "beta" });
    await chat(a.secret, "first question");
    await chat(a.secret, "second, longer question about gateways");
    await chat(b.secret, "third");

    const all = await sumOfEvents({ workspaceId: workspace.id });
    const onlyA = await sumOfEvents({ workspaceId: workspace.id, apiKeyId: a.key.id });
    const summary = await owner.usage.summary({});
    expect(summary.totals).toMatchObject({ cost: all.cost, requests: 3 });
    expect(summary.days).toHaveLength(30);
    expect(summary.days.at(-1)).toMatchObject({ day: today(), cost: all.cost, requests: 3 });
    expect(summary.models).toEqual([expect.objectContaining({ modelId: MODEL, cost: all.cost, requests: 3 })]);
    expect(summary.totals.inputTokens).toBeGreaterThan(0);

    const filtered = await owner.usage.summary({ apiKeyId: a.key.id, from: dayOffset(-1), to: today() });
    expect(filtered.totals).toMatchObject({ cost: onlyA.cost, requests: 2 });
    expect(filtered.days).toHaveLength(2);
    expect((await owner.usage.summary({ from: dayOffset(1), to: dayOffset(2) })).totals.requests).toBe(0);
    await expect(owner.usage.summary({ from: today(), to: dayOffset(-1) })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(owner.usage.summary({ from: dayOffset(-400), to: today() })).rejects.toMatchObject({ code: "BAD_REQUEST" });

    const first = await owner.usage.events({ limit: 2 });
    expect(first.events).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = await owner.usage.events({ limit: 2, cursor: first.nextCursor! });
    expect(second.events).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    const events = [...first.events, ...second.events];
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    expect(events[2]).toMatchObject({ modelId: MODEL, endpoint: "/v1/chat/completions", status: "succeeded", key: { name: "alpha, the first" } });
    expect(events[0]!.units).toMatch(/in \/ .* out tokens/);
    expect(formatMoney(events.reduce((s, e) => s.plus(e.cost), money(0)))).toBe(all.cost);
    expect((await owner.usage.events({ apiKeyId: b.key.id })).events).toHaveLength(1);

    const { csv, rows, truncated } = await owner.usage.exportCsv({});
    const lines = csv.split("\r\n").filter(Boolean);
    expect(lines[0]).toMatch(/^time,request_id,endpoint,model,key_id,key_name/);
    expect(lines).toHaveLength(4);
    expect({ rows, truncated }).toEqual({ rows: 3, truncated: false });
    expect(csv).toContain(`"alpha, the first"`);
  });

  it("the CSV download answers only a signed-in member", async () => {
    const { workspace } = await teamWorkspace("1", ["owner"]);
    const res = await raw(`/api/usage/export?workspaceId=${workspace.id}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: "unauthenticated" } });
  });

  it("a key id of another workspace shows nothing", async () => {
    const mine = await teamWorkspace("1", ["owner"]);
    const theirs = await teamWorkspace("1", ["owner"]);
    const k = await theirs.members.owner!.caller.keys.create({ name: "theirs" });
    await chat(k.secret);
    expect((await mine.members.owner!.caller.usage.summary({ apiKeyId: k.key.id })).totals.requests).toBe(0);
  });
});

describe("dashboard: billing", () => {
  it("the ledger shows the credit and the day's charges; only operators add credits, exactly", async () => {
    const { workspace, members } = await teamWorkspace("3", ["owner", "member", "billing"]);
    const k = await members.owner!.caller.keys.create({ name: "spender" });
    await chat(k.secret);
    await chat(k.secret);
    const charged = await sumOfEvents({ workspaceId: workspace.id });

    const ledger = await members.billing!.caller.billing.ledger({});
    expect(ledger.entries).toEqual([
      expect.objectContaining({ kind: "charge", amount: formatMoney(money(0).minus(charged.cost)), id: `usage-${today()}` }),
      expect.objectContaining({ kind: "credit", amount: "3" }),
    ]);
    const overview = await members.billing!.caller.billing.overview();
    expect(overview).toMatchObject({ creditsTotal: "3", chargesTotal: charged.cost, balance: formatMoney(money(3).minus(charged.cost)) });
    await expect(members.member!.caller.billing.overview()).rejects.toMatchObject({ code: "FORBIDDEN" });

    await expect(members.owner!.caller.billing.addCredits({ workspaceId: workspace.id, amount: "1" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const operator = await newUser({ operator: true });
    const op = await userCaller(operator.id);
    const after = await op.billing.addCredits({ workspaceId: workspace.id, amount: "0.000000000000000001", note: "goodwill" });
    expect(after.balance).toBe(formatMoney(money(overview.balance).plus("0.000000000000000001")));
    await expect(op.billing.addCredits({ workspaceId: "ws_missing", amount: "1" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const top = (await members.owner!.caller.billing.ledger({ pageSize: 1 })).entries[0];
    expect(top).toMatchObject({ kind: "credit", description: "goodwill", createdBy: { email: operator.email } });
  });
});

describe("API key spend limit", () => {
  it("a key is refused (402 key_spend_limit_reached) once it has spent its limit; other keys still work", async () => {
    const { members } = await teamWorkspace("2", ["owner"]);
    const limited = await members.owner!.caller.keys.create({ name: "tiny", spendLimit: "0.000001" });
    const other = await members.owner!.caller.keys.create({ name: "free" });
    await chat(limited.secret); // admitted: nothing spent yet; its cost passes the limit
    const { value: refusal } = await until(
      () => chat(limited.secret).then(() => null, (err: unknown) => err),
      (err) => err !== null,
      10_000,
    );
    expect(refusal).toBeInstanceOf(APIError);
    expect(refusal).toMatchObject({ status: 402, code: "key_spend_limit_reached", type: "insufficient_quota" });
    await expect(chat(other.secret)).resolves.toMatchObject({ object: "chat.completion" });
    // Spent, not disabled: it may still read what costs nothing.
    const models = await client(limited.secret).models.list();
    expect(models.data.length).toBeGreaterThan(0);

    const row = await db.apiKey.findUniqueOrThrow({ where: { id: limited.key.id } });
    const spent = await sumOfEvents({ workspaceId: limited.key.workspaceId, apiKeyId: limited.key.id });
    expect(formatMoney(row.spent)).toBe(spent.cost);
    expect(money(spent.cost).gte("0.000001")).toBe(true);
    const listed = (await members.owner!.caller.keys.list()).find((k) => k.id === limited.key.id);
    expect(listed).toMatchObject({ spendLimit: "0.000001", spent: spent.cost });
  });
});
