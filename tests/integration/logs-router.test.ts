// The Logs page's procedure (logs.list) as dashboard members see it: rows made by real calls
// through the gateway with the official SDK, every filter narrowing them, pages newest first by
// keyset, another workspace's rows never shown whatever the filter or cursor, and callers who are
// not members of the workspace refused.
import { describe, expect, it } from "vitest";
import { createCaller, type Caller } from "../../server/trpc/root";
import { newRequestId } from "../../server/kernel/ids";
import { newUser, teamWorkspace, userCaller } from "../helpers-dashboard";
import { client, raw, until } from "../helpers";

const MODEL = "local-chat-sim";
type Filter = Parameters<Caller["logs"]["list"]>[0];

/** The workspace's log once it holds `n` rows (the writer flushes every 250 ms). */
async function logsOf(caller: Caller, n: number, filter: Filter = {}) {
  const { value } = await until(() => caller.logs.list(filter), (r) => r.logs.length >= n, 10_000);
  expect(value.logs).toHaveLength(n);
  return value.logs;
}

const chat = (secret: string, content: string, headers: Record<string, string> = {}) =>
  client(secret).chat.completions.create({ model: MODEL, messages: [{ role: "user", content }] }, { headers });

/** A call the gateway refuses: the model does not exist (404 model_not_found). */
const refused = (secret: string) =>
  raw("/v1/chat/completions", {
    method: "POST",
    key: secret,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "no-such-model", messages: [{ role: "user", content: "x" }] }),
  });

describe("logs.list", () => {
  it("every filter narrows the workspace's log: time, status class, error code, model, key, plan, subject and tag", async () => {
    const { members } = await teamWorkspace("5", ["owner", "billing"]);
    const owner = members.owner!.caller;
    const plan = await owner.plans.create({ name: "app users" });
    const a = await owner.keys.create({ name: "alpha" });
    const b = await owner.keys.create({ name: "beta", planId: plan.id });
    const session = await owner.sessions.create({ plan: plan.id, subject: "user-7" });

    await chat(a.secret, "first", { "x-gateway-tags": "team=search" });
    expect((await refused(a.secret)).status).toBe(404);
    await chat(b.secret, "second", { "x-gateway-tags": "team=ads" });
    await chat(session.token, "third");
    const all = await logsOf(owner, 4);
    expect(all.map((l) => [l.status, l.error_code])).toEqual([
      [200, null],
      [200, null],
      [404, "model_not_found"],
      [200, null],
    ]);

    const ids = async (filter: Filter) => (await owner.logs.list(filter)).logs.map((l) => l.request_id);
    const [bySession, byB, refusedRow, byA] = all.map((l) => l.request_id);
    expect(await ids({ status: "4xx" })).toEqual([refusedRow]);
    expect(await ids({ status: "2xx" })).toEqual([bySession, byB, byA]);
    expect(await ids({ status: "5xx" })).toEqual([]);
    expect(await ids({ code: "model_not_found" })).toEqual([refusedRow]);
    expect(await ids({ model: MODEL })).toEqual([bySession, byB, byA]);
    expect(await ids({ keyId: a.key.id })).toEqual([refusedRow, byA]);
    expect(await ids({ keyId: b.key.id })).toEqual([byB]);
    expect(await ids({ planId: plan.id })).toEqual([bySession, byB]);
    expect(await ids({ subject: "user-7" })).toEqual([bySession]);
    expect(await ids({ tag: "team=ads" })).toEqual([byB]);
    expect(await ids({ tag: "team" })).toEqual([byB, byA]);
    expect(await ids({ status: "4xx", keyId: b.key.id })).toEqual([]);
    const hourAgo = new Date(Date.now() - 3_600_000);
    expect(await ids({ from: hourAgo })).toEqual(all.map((l) => l.request_id));
    expect(await ids({ from: new Date(Date.now() + 60_000) })).toEqual([]);
    expect(await ids({ to: hourAgo })).toEqual([]);

    const row = all[0]!;
    expect(row).toMatchObject({ route: "/v1/chat/completions", method: "POST", model: MODEL, credential: { plan_id: plan.id, subject: "user-7" } });
    expect(row.duration_ms).toBeGreaterThanOrEqual(row.upstream_ms!);
    expect(row.first_byte_ms).toBeGreaterThan(0);
    // The billing role sees usage, so it sees the log too.
    expect((await members.billing!.caller.logs.list({})).logs).toEqual(all);
  });

  it("pages newest first by keyset, a page's cursor opening the next", async () => {
    const { members } = await teamWorkspace("5", ["owner"]);
    const owner = members.owner!.caller;
    const { secret } = await owner.keys.create({ name: "pager" });
    for (let i = 0; i < 5; i++) await chat(secret, `question ${i}`);
    const all = await logsOf(owner, 5);
    const times = all.map((l) => l.created_at);
    expect([...times].sort().reverse()).toEqual(times);

    const first = await owner.logs.list({ limit: 2 });
    const second = await owner.logs.list({ limit: 2, cursor: first.next_cursor! });
    const third = await owner.logs.list({ limit: 2, cursor: second.next_cursor! });
    expect([first, second, third].map((p) => p.logs.length)).toEqual([2, 2, 1]);
    expect([...first.logs, ...second.logs, ...third.logs].map((l) => l.request_id)).toEqual(all.map((l) => l.request_id));
    expect(third.next_cursor).toBeNull();
    await expect(owner.logs.list({ cursor: "not a cursor" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("another workspace's rows are never shown: not by its key's id, not through its cursor", async () => {
    const mine = await teamWorkspace("5", ["owner"]);
    const theirs = await teamWorkspace("5", ["owner"]);
    const me = mine.members.owner!.caller;
    const them = theirs.members.owner!.caller;
    const myKey = await me.keys.create({ name: "mine" });
    const theirKey = await them.keys.create({ name: "theirs" });
    await chat(myKey.secret, "mine");
    for (let i = 0; i < 3; i++) await chat(theirKey.secret, `theirs ${i}`, { "x-gateway-tags": "team=theirs" });
    const myLogs = await logsOf(me, 1);
    const theirLogs = await logsOf(them, 3);

    expect(myLogs.map((l) => l.credential.key_id)).toEqual([myKey.key.id]);
    expect(await me.logs.list({ keyId: theirKey.key.id })).toEqual({ logs: [], next_cursor: null });
    expect((await me.logs.list({ tag: "team=theirs" })).logs).toEqual([]);
    // Their cursor holds a time and an id of theirs; in my workspace it only says "older than".
    const theirPage = await them.logs.list({ limit: 1 });
    const throughTheirCursor = await me.logs.list({ cursor: theirPage.next_cursor! });
    expect(throughTheirCursor.logs.filter((l) => theirLogs.some((t) => t.request_id === l.request_id))).toEqual([]);
  });

  it("refuses callers who are not members of the workspace, and callers without a session", async () => {
    const { workspace, members } = await teamWorkspace("5", ["owner"]);
    const { secret } = await members.owner!.caller.keys.create({ name: "k" });
    await chat(secret, "hello");
    await logsOf(members.owner!.caller, 1);

    const stranger = await newUser();
    await expect((await userCaller(stranger.id, workspace.id)).logs.list({})).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect((await userCaller(stranger.id)).logs.list({})).rejects.toMatchObject({ code: "NOT_FOUND" });
    const anonymous = createCaller({ requestId: newRequestId(), principal: null, user: null });
    await expect(anonymous.logs.list({})).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});
