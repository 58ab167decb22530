// Routes (virtual models) with the official SDK against stand-in nodes whose failures, latencies,
// 429s and context limits the tests set: weighted shares, least-latency, fallback on 429 with its
// Retry-After, the context_length fallback, streams falling back only before their first byte,
// the bill at the answering model's price, conditions, refusals at `route set`, the model list,
// and two instances serving a change within a second. Each model here exists only for this file.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlan } from "../../server/identity/plans/manage-plans";
import { createKey } from "../../server/identity/keys/create-key";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { formatMoney, money } from "../../server/kernel/money";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { checkAllNodes } from "../../server/routing/nodes/health-check";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { removeRoute, setRoute } from "../../server/routing/routes/route-store";
import { chatModelCard } from "../fakes/chat-model-card";
import { FAKE_USAGE, startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { cli } from "../cli-process";
import { baseUrl, newWorkspace, until } from "../helpers";
import { startGatewayInstance } from "../instances";
import { mintToken } from "../plans-fixtures";

const A = "rt-model-a";
const B = "rt-model-b";
const SMALL = "rt-model-small";
const BIG = "rt-model-big";
const C = "rt-model-c";
const PRICES: Record<string, { input: string; output: string }> = { [A]: { input: "0.3", output: "1.7" }, [B]: { input: "1", output: "2" }, [SMALL]: { input: "0.3", output: "1.7" }, [BIG]: { input: "2", output: "4" }, [C]: { input: "0.3", output: "1.7" } };
const fakes: Record<string, FakeUpstream> = {};
const nodeIds: string[] = [];

beforeAll(async () => {
  for (const id of [A, B, SMALL, BIG, C]) {
    const card = { ...chatModelCard(id, PRICES[id]), context_length: id === BIG ? 32768 : 8192 };
    await db.model.create({ data: cardToRow(card) });
    fakes[id] = await startFakeUpstream(id);
    nodeIds.push((await addNode({ name: `rt-node-${id}`, url: fakes[id]!.url, city: id === B ? "Paris" : "Madrid", country: id === B ? "FR" : "ES" })).node.id);
  }
  await checkAllNodes();
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.nodesChanged);
});

afterAll(async () => {
  for (const id of nodeIds) await removeNode(id).catch(() => undefined);
  await db.model.deleteMany({ where: { id: { in: [A, B, SMALL, BIG, C] } } });
  for (const f of Object.values(fakes)) await f.close();
});

const calls = () => Object.fromEntries(Object.entries(fakes).map(([k, f]) => [k, f.calls]));
const delta = (before: Record<string, number>) => Object.fromEntries(Object.entries(fakes).map(([k, f]) => [k, f.calls - before[k]!]));
const reset = () => Object.values(fakes).forEach((f) => Object.assign(f, { mode: "ok", delayMs: 0, retryAfter: "1", contextChars: 0 }));

/** A chat call with the raw answer, so the routing headers can be read. */
async function ask(openai: OpenAI, model: string, content = "hello", extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const { data, response } = await openai.chat.completions.create({ model, messages: [{ role: "user", content }], max_tokens: 8, ...extra }, { headers }).withResponse();
  return { completion: data, headers: response.headers };
}

/** Sets a route and waits until the gateway serves it (it learns of the change by NOTIFY, a few milliseconds later). */
async function routeSet(workspaceId: string, openai: OpenAI, def: Record<string, unknown>) {
  await setRoute(workspaceId, def);
  const seen = await until(async () => (await openai.models.list()).data.some((m) => m.id === def.name), (ok) => ok, 2000);
  expect(seen.value, `the gateway serves ${String(def.name)}`).toBe(true);
}

/** Runs `n` calls, `width` at a time. */
async function many(n: number, width: number, one: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) await one(next++);
  }));
}

describe("routes", () => {
  it("weighted: 70/30 over 2,000 calls, within 5 points; the answer names the model that answered, the headers the route and target", async () => {
    reset();
    const { workspace, openai } = await newWorkspace("20");
    await routeSet(workspace.id, openai, { name: "chat-default", strategy: "weighted", targets: [{ model: A, weight: 70 }, { model: B, weight: 30 }] });
    const first = await ask(openai, "chat-default");
    expect([A, B]).toContain(first.completion.model);
    expect(first.headers.get("x-gateway-route")).toBe("chat-default");
    expect(first.headers.get("x-gateway-target")).toBe(`${first.completion.model}@rt-node-${first.completion.model}`);
    expect(first.headers.get("x-gateway-attempts")).toBe("1");
    const before = calls();
    await many(2000, 16, (i) => openai.chat.completions.create({ model: "chat-default", messages: [{ role: "user", content: `w${i}` }], max_tokens: 4 }));
    const d = delta(before);
    expect(d[A]! + d[B]!).toBe(2000);
    expect(Math.abs((d[A]! / 2000) * 100 - 70), `A got ${d[A]} of 2000`).toBeLessThanOrEqual(5);
  }, 120_000);

  it("least-latency: once both targets are measured, at least 90% of 200 calls go to the fast one, and the route moves when it slows", async () => {
    reset();
    const { workspace, openai } = await newWorkspace("20");
    await routeSet(workspace.id, openai, { name: "fastest", strategy: "least-latency", targets: [{ model: A }, { model: B }] });
    // 250 ms against a few: far more than what a loaded machine adds to either's measured time.
    fakes[A]!.delayMs = 250;
    // The first calls measure both targets in each of the gateway's processes (every call goes to
    // a target measured fewer than 3 times, and each process knows only its own): with 4 calls at
    // a time, up to about 8 of them to the slow one. Counted from there, the slow one gets the
    // exploration share alone (5 %: 10 of 200 expected, 21 or more about once in a thousand runs).
    await many(40, 4, (i) => ask(openai, "fastest", `k${i}`));
    let before = calls();
    await many(200, 4, (i) => ask(openai, "fastest", `l${i}`));
    let d = delta(before);
    expect(d[B]! / 200, `the fast target got ${d[B]} of 200`).toBeGreaterThanOrEqual(0.9);
    // The fast one slows down and the slow one recovers: the exploration share notices. Each of
    // the gateway's processes keeps its own estimates and explores 5 % of its calls, so 300 calls
    // give each about seven samples of the recovered target (three bring its estimate below the other's).
    fakes[A]!.delayMs = 0;
    fakes[B]!.delayMs = 250;
    await many(300, 4, (i) => ask(openai, "fastest", `m${i}`));
    before = calls();
    await many(100, 4, (i) => ask(openai, "fastest", `n${i}`));
    d = delta(before);
    expect(d[A]! / 100, `the recovered target got ${d[A]} of the last 100`).toBeGreaterThanOrEqual(0.85);
  }, 120_000);

  it("context_length: a prompt too long for one model goes to a model with a larger context, skipping those no larger", async () => {
    reset();
    const { workspace, openai } = await newWorkspace("5");
    await routeSet(workspace.id, openai, { name: "long", strategy: "fallback", targets: [{ model: SMALL }, { model: A }, { model: BIG }], retry: { attempts: 3, on: ["context_length"] } });
    fakes[SMALL]!.contextChars = 200;
    fakes[A]!.contextChars = 200;
    const before = calls();
    const r = await ask(openai, "long", "x".repeat(500));
    expect(r.completion.model).toBe(BIG);
    expect(r.headers.get("x-gateway-attempts")).toBe("2");
    expect(delta(before)).toMatchObject({ [SMALL]: 1, [A]: 0, [BIG]: 1 });
    // A short prompt stays on the first.
    expect((await ask(openai, "long", "short")).completion.model).toBe(SMALL);
  });

  it("per-target timeouts: a target slower than its first-byte or whole-attempt timeout times out, and the next answers", async () => {
    reset();
    const { workspace, openai } = await newWorkspace("5");
    await routeSet(workspace.id, openai, { name: "hasty", strategy: "fallback", targets: [{ model: C, first_byte_timeout_ms: 150 }, { model: B }] });
    await routeSet(workspace.id, openai, { name: "brief", strategy: "fallback", targets: [{ model: C, timeout_ms: 150 }, { model: B }] });
    // C answers after 4 s: a call that waited for it would take that long; one that timed out
    // after 150 ms and went to B takes a fraction of it, even on a loaded machine (1.2 s was seen).
    fakes[C]!.delayMs = 4000;
    for (const route of ["hasty", "brief"]) {
      const started = Date.now();
      const r = await ask(openai, route);
      expect(r.completion.model, route).toBe(B);
      expect(r.headers.get("x-gateway-attempts"), route).toBe("2");
      expect(Date.now() - started, route).toBeLessThan(3000);
    }
    fakes[C]!.delayMs = 0;
    // A route's own timeouts never open the node's breaker, which every workspace's calls share:
    // after more of them than BREAKER_FAILURES, the node still takes a call naming its model.
    fakes[C]!.delayMs = 1500;
    for (let i = 0; i < 4; i++) await ask(openai, "hasty", `again ${i}`);
    fakes[C]!.delayMs = 0;
    const before = calls();
    expect((await ask(openai, C, "direct")).completion.model).toBe(C);
    expect(delta(before)).toMatchObject({ [C]: 1 });
  });

  it("a stream that fails before its first byte falls back; one that fails after does not", async () => {
    reset();
    const { workspace, openai } = await newWorkspace("5");
    await routeSet(workspace.id, openai, { name: "streamy", strategy: "fallback", targets: [{ model: A }, { model: B }] });
    fakes[A]!.mode = "fail";
    let before = calls();
    const stream = await openai.chat.completions.create({ model: "streamy", messages: [{ role: "user", content: "s" }], stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toContain("w19");
    expect(delta(before)).toMatchObject({ [A]: 1, [B]: 1 });
    fakes[A]!.mode = "break-stream";
    before = calls();
    const broken = await openai.chat.completions.create({ model: "streamy", messages: [{ role: "user", content: "t" }], stream: true });
    await expect(
      (async () => {
        for await (const _ of broken) void _;
      })(),
    ).rejects.toThrow();
    expect(delta(before)).toMatchObject({ [A]: 1, [B]: 0 });
  });

  it("a fallback bills once, exactly at the answering model's price; when every target fails the last failure is answered", async () => {
    reset();
    const { workspace, openai } = await newWorkspace("5");
    await routeSet(workspace.id, openai, { name: "billed", strategy: "fallback", targets: [{ model: A }, { model: B }] });
    fakes[A]!.mode = "fail";
    const r = await ask(openai, "billed");
    expect(r.completion.model).toBe(B);
    const requestId = r.headers.get("x-request-id")!;
    const expected = formatMoney(money(PRICES[B]!.input).times(FAKE_USAGE.prompt_tokens).plus(money(PRICES[B]!.output).times(FAKE_USAGE.completion_tokens)).dividedBy(1_000_000));
    const events = await until(() => db.usageEvent.findMany({ where: { workspaceId: workspace.id } }), (e) => e.length >= 1, 5000);
    expect(events.value).toHaveLength(1);
    expect(events.value[0]!).toMatchObject({ id: requestId, modelId: B });
    expect(formatMoney(money(events.value[0]!.cost.toString()))).toBe(expected);
    // Every target failing: the last failure, with how many were tried.
    fakes[B]!.mode = "fail";
    const res = await fetch(`${baseUrl()}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${openai.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ model: "billed", messages: [{ role: "user", content: "x" }] }) });
    expect(res.status).toBe(502);
    expect(res.headers.get("x-gateway-attempts")).toBe("2");
    expect(res.headers.get("x-gateway-target")).toBeNull();
    // The request log keeps every attempt.
    if (process.env.REQUEST_LOG !== "off") {
      const id = res.headers.get("x-request-id")!;
      const row = await until(() => db.requestLog.findFirst({ where: { id } }), (x) => x !== null, 10_000);
      // (A failed twice in a row here: its breaker may be open, which puts it last.)
      expect((row.value!.routing as { attempts: { model: string; status: number }[] }).attempts.map((a) => [a.model, a.status]).sort()).toEqual([[A, 502], [B, 502]]);
    }
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(1);
  });

  it("a routed call is admitted for its dearest target: a balance that covers the cheap one alone is refused with 402 before any node is called", async () => {
    reset();
    const { workspace, openai } = await newWorkspace("0.003");
    // At most 1,000 output tokens: A's bound is about 0.0017 USD, BIG's about 0.004 USD.
    await routeSet(workspace.id, openai, { name: "cheap-or-dear", strategy: "fallback", targets: [{ model: A }, { model: BIG }] });
    expect((await ask(openai, A, "direct", { max_tokens: 1000 })).completion.model).toBe(A);
    const before = calls();
    await expect(ask(openai, "cheap-or-dear", "routed", { max_tokens: 1000 })).rejects.toMatchObject({ status: 402 });
    expect(delta(before)).toMatchObject({ [A]: 0, [BIG]: 0 });
  });

  it("conditions on metadata, tags, the plan and the subject send a call to another model or route", async () => {
    reset();
    const { workspace, openai, secret } = await newWorkspace("5");
    await createPlan(workspace.id, { name: "free" });
    await routeSet(workspace.id, openai, { name: "small-chat", strategy: "fallback", targets: [{ model: SMALL }] });
    await routeSet(workspace.id, openai, {
      name: "tiered",
      strategy: "fallback",
      targets: [{ model: A }],
      conditions: [
        { when: "metadata.tier == 'free'", use: "small-chat" },
        { when: "'team' in tags && re_match(tags.team, '^res(earch)?$')", use: BIG },
        { when: "plan.name == 'free' && subject.startsWith('student-')", use: B },
      ],
    });
    expect((await ask(openai, "tiered")).completion.model).toBe(A);
    expect((await ask(openai, "tiered", "hi", { metadata: { tier: "free" } })).completion.model).toBe(SMALL);
    expect((await ask(openai, "tiered", "hi", {}, { "x-gateway-tags": "team=research" })).completion.model).toBe(BIG);
    const token = await mintToken(secret, { plan: "free", subject: "student-7" });
    const asStudent = new OpenAI({ apiKey: token.token, baseURL: `${baseUrl()}/v1` });
    expect((await ask(asStudent, "tiered")).completion.model).toBe(B);
    const other = await mintToken(secret, { plan: "free", subject: "teacher-1" });
    expect((await ask(new OpenAI({ apiKey: other.token, baseURL: `${baseUrl()}/v1` }), "tiered")).completion.model).toBe(A);
  });

  it("route set refuses cycles, expressions that do not compile or name unknown variables, unknown models and nodes", async () => {
    const { workspace } = await newWorkspace("1");
    await setRoute(workspace.id, { name: "r1", strategy: "fallback", targets: [{ model: A }] });
    await setRoute(workspace.id, { name: "r2", strategy: "fallback", targets: [{ model: "r1" }] });
    const refused = async (def: unknown, code: string, message: RegExp) => {
      const err = await setRoute(workspace.id, def).then(() => null, (e: unknown) => e as { status: number; code: string; message: string });
      expect(err, JSON.stringify(def)).not.toBeNull();
      expect(err!.status).toBe(400);
      expect(err!.code).toBe(code);
      expect(err!.message).toMatch(message);
    };
    await refused({ name: "r1", strategy: "fallback", targets: [{ model: "r2" }] }, "route_cycle", /r1 -> r2 -> r1/);
    await refused({ name: "r3", strategy: "fallback", targets: [{ model: A }], conditions: [{ when: "r3x == 1", use: "r3" }] }, "invalid_condition", /Unknown variable: r3x[\s\S]*\^/);
    await refused({ name: "r3", strategy: "fallback", targets: [{ model: A }], conditions: [{ when: "metadata.tier == ", use: B }] }, "invalid_condition", /conditions\[0\]\.when does not compile/);
    await refused({ name: "r3", strategy: "fallback", targets: [{ model: A }], conditions: [{ when: "prompt_tokens", use: B }] }, "invalid_condition", /must be a bool/);
    // CEL's matches() would run a backtracking RegExp on callers' data: refused; re_match runs RE2.
    await refused({ name: "r3", strategy: "fallback", targets: [{ model: A }], conditions: [{ when: "metadata.tier.matches('^(a+)+$')", use: B }] }, "invalid_condition", /matches\(\) is not available/);
    await refused({ name: "r3", strategy: "fallback", targets: [{ model: A }], conditions: [{ when: "re_match(metadata.tier, '(a')", use: B }] }, "invalid_condition", /not valid RE2/);
    await refused({ name: "r3", strategy: "fallback", targets: [{ model: "no-such-model" }] }, "model_not_found", /targets\[0\]\.model/);
    await refused({ name: "r3", strategy: "fallback", targets: [{ model: A, node: "no-such-node" }] }, "node_not_found", /not a node/);
    await refused({ name: A, strategy: "fallback", targets: [{ model: B }] }, "invalid_request", /catalog model's id/);
    await expect(setRoute(workspace.id, { name: "r3", strategy: "spray", targets: [{ model: A }] })).rejects.toMatchObject({ status: 400, param: "strategy" });
    await expect(removeRoute(workspace.id, "r1")).rejects.toMatchObject({ status: 400, code: "route_in_use" });
    // Every change is in the audit log.
    expect(await db.auditEvent.count({ where: { workspaceId: workspace.id, action: "route.set" } })).toBe(2);
  });

  it("a route pinned to a node and a nested route; another workspace cannot name this one's routes", async () => {
    reset();
    const { workspace, openai } = await newWorkspace("5");
    await routeSet(workspace.id, openai, { name: "pinned", strategy: "fallback", targets: [{ model: A, node: `rt-node-${A}` }] });
    await routeSet(workspace.id, openai, { name: "outer", strategy: "fallback", targets: [{ model: "pinned" }, { model: B }] });
    const r = await ask(openai, "outer");
    expect(r.completion.model).toBe(A);
    expect(r.headers.get("x-gateway-target")).toBe(`${A}@rt-node-${A}`);
    const stranger = await newWorkspace("1");
    await expect(stranger.openai.chat.completions.create({ model: "outer", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 404 });
  });

  it("the model list shows the routes a caller may name, and a restricted key sees only the models its groups can call", async () => {
    const { workspace, openai } = await newWorkspace("1");
    await routeSet(workspace.id, openai, { name: "listed", description: "Our default chat", strategy: "fallback", targets: [{ model: A }] });
    const ids = (await openai.models.list()).data;
    const listed = ids.find((m) => m.id === "listed");
    expect(listed).toMatchObject({ owned_by: "route", object: "model" });
    expect(ids.some((m) => m.id === A)).toBe(true);
    const { secret } = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "text only", permissions: ["models", "text", "embeddings"] }));
    const restricted = new OpenAI({ apiKey: secret, baseURL: `${baseUrl()}/v1` });
    const types = new Set((await restricted.models.list()).data.map((m) => (m as unknown as { type: string }).type));
    expect([...types].sort()).toEqual(["chat", "embedding", "moderation"]);
    await expect(restricted.models.retrieve("local-image")).rejects.toMatchObject({ status: 404 });
    expect(await restricted.models.retrieve("listed")).toMatchObject({ id: "listed", owned_by: "route", type: "chat" });
    const limited = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "one model", models: [A] }));
    expect((await new OpenAI({ apiKey: limited.secret, baseURL: `${baseUrl()}/v1` }).models.list()).data.map((m) => m.id)).toEqual([A]);
  });
  it("fallback on 429: the next target answers; the rate-limited one is passed over for its Retry-After, then used again", async () => {
    reset();
    const { workspace, openai } = await newWorkspace("5");
    await routeSet(workspace.id, openai, { name: "limited", strategy: "fallback", targets: [{ model: A }, { model: B }], retry: { attempts: 2, on: ["429", "5xx"] } });
    fakes[A]!.mode = "rate-limited";
    fakes[A]!.retryAfter = "2";
    let before = calls();
    const r1 = await ask(openai, "limited");
    expect(r1.completion.model).toBe(B);
    expect(r1.headers.get("x-gateway-attempts")).toBe("2");
    expect(delta(before)).toMatchObject({ [A]: 1, [B]: 1 });
    // Within its Retry-After, the limited target is not tried first.
    before = calls();
    const r2 = await ask(openai, "limited");
    expect(r2.headers.get("x-gateway-attempts")).toBe("1");
    expect(delta(before)).toMatchObject({ [A]: 0, [B]: 1 });
    fakes[A]!.mode = "ok";
    await new Promise((r) => setTimeout(r, 2100));
    expect((await ask(openai, "limited")).completion.model).toBe(A);
  }, 30_000);

  it("a single rate-limited target is waited for when its Retry-After is within max_wait_ms, and not when it is longer", async () => {
    reset();
    const { workspace, openai } = await newWorkspace("5");
    await routeSet(workspace.id, openai, { name: "patient", strategy: "fallback", targets: [{ model: A }], retry: { attempts: 2, on: ["429"] }, max_wait_ms: 3000 });
    fakes[A]!.mode = "rate-limited";
    fakes[A]!.retryAfter = "1";
    setTimeout(() => (fakes[A]!.mode = "ok"), 300);
    const started = Date.now();
    const r = await ask(openai, "patient");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(r.completion.model).toBe(A);
    expect(r.headers.get("x-gateway-attempts")).toBe("2");
    // A Retry-After beyond the caller's patience: the failure is answered at once, with the attempts counted.
    await routeSet(workspace.id, openai, { name: "impatient", strategy: "fallback", targets: [{ model: C }], retry: { attempts: 2, on: ["429"] }, max_wait_ms: 500 });
    fakes[C]!.mode = "rate-limited";
    fakes[C]!.retryAfter = "5";
    const res = await fetch(`${baseUrl()}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${openai.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ model: "impatient", messages: [{ role: "user", content: "x" }] }) });
    expect(res.status).toBe(429);
    expect(res.headers.get("x-gateway-attempts")).toBe("1");
    expect(res.headers.get("x-gateway-route")).toBe("impatient");
    expect((await res.json()).error.code).toBe("upstream_rate_limited");
  }, 30_000);

  it("the CLI sets, lists, shows and removes a workspace's route (and refuses one with neither a workspace nor --global)", async () => {
    const { workspace } = await newWorkspace("1");
    const file = path.join(mkdtempSync(path.join(tmpdir(), "route-")), "route.json");
    writeFileSync(file, JSON.stringify({ name: "cli-route", strategy: "fallback", targets: [{ model: A }, { model: B }] }));
    const set = await cli("route", "set", workspace.id, "--file", file, "--json");
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ scope: "workspace", name: "cli-route" });
    const list = JSON.parse((await cli("route", "list", workspace.id, "--json")).stdout) as { data: { name: string }[] };
    expect(list.data.map((r) => r.name)).toContain("cli-route");
    expect(JSON.parse((await cli("route", "show", workspace.id, "cli-route", "--json")).stdout)).toMatchObject({ definition: { strategy: "fallback" } });
    expect((await cli("route", "remove", workspace.id, "cli-route", "--json")).code).toBe(0);
    const bare = await cli("route", "list");
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toContain("WORKSPACE_ID");
    // Five runs of the CLI, each a process of its own: several seconds apiece on a loaded 2-core machine.
  }, 90_000);
});

describe("routes across instances", () => {
  it("a route set on one instance is served by two others within one second", async () => {
    reset();
    const [one, two] = await Promise.all([startGatewayInstance(), startGatewayInstance()]);
    try {
      const { workspace, secret } = await newWorkspace("5");
      const clients = [one, two].map((i) => new OpenAI({ apiKey: secret, baseURL: `${i.url}/v1`, maxRetries: 0 }));
      // Both have loaded the routes (none for this workspace yet).
      for (const c of clients) await expect(c.chat.completions.create({ model: "moving", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 404 });
      const seen: string[] = [];
      const modelOn = (c: OpenAI) => c.chat.completions.create({ model: "moving", messages: [{ role: "user", content: "x" }] }).then((r) => r.model, (e: Error) => (seen.push(e.message), null));
      await setRoute(workspace.id, { name: "moving", strategy: "fallback", targets: [{ model: A }] });
      const served = await Promise.all(clients.map((c) => until(() => modelOn(c), (m) => m === A, 3000)));
      for (const s of served) expect(s.ms, seen.slice(-3).join(" | ") + one.output().slice(-3000)).toBeLessThan(1000);
      await setRoute(workspace.id, { name: "moving", strategy: "fallback", targets: [{ model: B }] });
      const moved = await Promise.all(clients.map((c) => until(() => modelOn(c), (m) => m === B, 3000)));
      for (const s of moved) expect(s.ms, seen.slice(-3).join(" | ")).toBeLessThan(1000);
    } finally {
      await Promise.all([one.kill(), two.kill()]);
    }
  }, 120_000);
});
