// The response cache with the official SDKs against a real gateway and PostgreSQL: bypass by
// default, `x-gateway-cache: use` a miss then a hit (the same answer, charged at the cache price
// with the original units, the money saved recorded), streams replayed frame for frame,
// embeddings, the responses API and Anthropic's messages; sampled calls, refresh, bypass, TTLs and
// bad headers; never a hit across workspaces or into a key's own scope; clearing; two instances.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { createKey } from "../../server/identity/keys/create-key";
import { money } from "../../server/kernel/money";
import { clearCache } from "../../server/response-cache/clear";
import { listLogs } from "../../server/request-log/list-logs";
import { setCacheSettings, setKeyCache, setPlanCache } from "../../server/response-cache/settings";
import { cli } from "../cli-process";
import { startGatewayInstance, type GatewayInstance } from "../instances";
import { sseFrames } from "../sse-frames";
import { baseUrl, client, newWorkspace, until } from "../helpers";

const MODEL = "local-chat-sim";
const USE = { headers: { "x-gateway-cache": "use" } };
const ask = (content: string) => ({ model: MODEL, messages: [{ role: "user" as const, content }], temperature: 0, max_tokens: 24 });

const event = (id: string) => db.usageEvent.findUniqueOrThrow({ where: { id } });

/** The workspace of each key secret the tests call with. */
const workspaceOf = new Map<string, string>();

async function cachedWorkspace() {
  const w = await newWorkspace("1");
  workspaceOf.set(w.secret, w.workspace.id);
  return w;
}

/**
 * A miss's answer is written to the table just behind its answer (the process that answered has
 * it in memory at once; the test gateway's other process reads the table): waits until it is
 * there, so that the next call finds it whichever process takes it.
 */
async function stored(workspaceId: string, since: Date): Promise<void> {
  const { value } = await until(() => db.responseCacheEntry.count({ where: { workspaceId, createdAt: { gte: since } } }), (n) => n > 0, 5000);
  expect(value, "the miss's entry was stored").toBeGreaterThan(0);
}

/** Runs a call; a miss is waited for until stored. */
async function settled<T>(secret: string, call: () => Promise<T>, cacheOf: (r: T) => string | null): Promise<T> {
  const since = new Date(Date.now() - 2);
  const r = await call();
  if (cacheOf(r) === "miss") await stored(workspaceOf.get(secret)!, since);
  return r;
}

async function chat(secret: string, body: Record<string, unknown>, headers: Record<string, string> = { "x-gateway-cache": "use" }, url = baseUrl()) {
  return settled(
    secret,
    async () => {
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      return { res, status: res.status, cache: res.headers.get("x-gateway-cache"), id: res.headers.get("x-request-id")!, text: await res.text() };
    },
    (r) => r.cache,
  );
}

/** An SDK call `.withResponse()`, a miss waited for until stored. */
const sdk = <T extends { response: Response }>(secret: string, call: () => Promise<T>) => settled(secret, call, (r) => r.response.headers.get("x-gateway-cache"));

describe("the response cache", () => {
  it("bypasses by default and says so; with `use`, a miss then a hit with the same answer, charged the cache price (0) with the original units", async () => {
    const { openai, secret } = await cachedWorkspace();
    const plain = await openai.chat.completions.create(ask("plain call")).withResponse();
    expect(plain.response.headers.get("x-gateway-cache")).toBe("bypass");

    const miss = await sdk(secret, () => openai.chat.completions.create(ask("cache me"), USE).withResponse());
    expect(miss.response.headers.get("x-gateway-cache")).toBe("miss");
    const hit = await openai.chat.completions.create(ask("cache me"), USE).withResponse();
    expect(hit.response.headers.get("x-gateway-cache")).toBe("hit");
    expect(hit.data).toEqual(miss.data);

    const [original, replayed] = await Promise.all([event(miss.response.headers.get("x-request-id")!), event(hit.response.headers.get("x-request-id")!)]);
    expect(original.cacheHit).toBe(false);
    expect(money(original.cost).gt(0)).toBe(true);
    expect(replayed).toMatchObject({ cacheHit: true, nodeId: null, modelId: MODEL, inputTokens: original.inputTokens, outputTokens: original.outputTokens });
    expect(replayed.cost.toString()).toBe("0");
    expect(replayed.cacheSaved.toString()).toBe(original.cost.toString());
    // The request log says which call the cache answered.
    const { value: logged } = await until(() => listLogs(original.workspaceId, {}), (r) => r.logs.length >= 3, 10_000);
    expect(logged.logs.slice(0, 3).map((l) => l.cache)).toEqual(["hit", "miss", "bypass"]);
    // A model that is not cached (the answer differs) and labels that do not change the answer.
    const labelled = await openai.chat.completions.create({ ...ask("cache me"), user: "someone", metadata: { team: "x" } }, USE).withResponse();
    expect(labelled.response.headers.get("x-gateway-cache")).toBe("hit");
    const other = await sdk(secret, () => openai.chat.completions.create({ ...ask("cache me"), max_tokens: 25 }, USE).withResponse());
    expect(other.response.headers.get("x-gateway-cache")).toBe("miss");
  });

  it("charges a hit the workspace's fraction of the original cost, exactly, and records the rest as saved", async () => {
    const { workspace, secret } = await cachedWorkspace();
    await setCacheSettings(workspace.id, { default_on: true, price_fraction: "0.25" });
    const miss = await chat(secret, ask("a quarter"), {});
    const hit = await chat(secret, ask("a quarter"), {});
    expect([miss.cache, hit.cache]).toEqual(["miss", "hit"]);
    const [original, replayed] = await Promise.all([event(miss.id), event(hit.id)]);
    expect(replayed.cost.toString()).toBe(money(original.cost).times("0.25").toString());
    expect(money(replayed.cost).plus(replayed.cacheSaved).toString()).toBe(money(original.cost).toString());
  });

  it("replays a streamed hit with the live stream's framing (chunks, include_usage, [DONE])", async () => {
    const { secret } = await cachedWorkspace();
    const body = { ...ask("stream me"), stream: true, stream_options: { include_usage: true } };
    const frames = () => settled(secret, async () => {
      const res = await fetch(`${baseUrl()}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", "x-gateway-cache": "use" },
        body: JSON.stringify(body),
      });
      const out: string[] = [];
      for await (const f of sseFrames(res.body!)) out.push(f.raw);
      return { cache: res.headers.get("x-gateway-cache"), out };
    }, (r) => r.cache);
    const live = await frames();
    const replay = await frames();
    expect([live.cache, replay.cache]).toEqual(["miss", "hit"]);
    expect(replay.out).toEqual(live.out);
    expect(live.out.at(-1)).toContain("data: [DONE]");
    expect(live.out.some((f) => f.includes('"usage":{'))).toBe(true);
    // The SDK reads the replay like a live stream.
    const stream = await client(secret).chat.completions.create(body as never, USE);
    let text = "";
    for await (const chunk of stream as unknown as AsyncIterable<{ choices: { delta: { content?: string } }[] }>) text += chunk.choices[0]?.delta.content ?? "";
    expect(text.length).toBeGreaterThan(0);
  });

  it("caches embeddings, the responses API (plain and streamed) and Anthropic's messages", async () => {
    const { openai, secret } = await cachedWorkspace();
    const e1 = await sdk(secret, () => openai.embeddings.create({ model: "local-embed-ngram", input: ["same text"] }, USE).withResponse());
    const e2 = await openai.embeddings.create({ model: "local-embed-ngram", input: ["same text"] }, USE).withResponse();
    expect([e1.response.headers.get("x-gateway-cache"), e2.response.headers.get("x-gateway-cache")]).toEqual(["miss", "hit"]);
    expect(e2.data.data[0]!.embedding).toEqual(e1.data.data[0]!.embedding);

    const r1 = await sdk(secret, () => openai.responses.create({ model: MODEL, input: "respond once", temperature: 0 }, USE).withResponse());
    const r2 = await openai.responses.create({ model: MODEL, input: "respond once", temperature: 0 }, USE).withResponse();
    expect(r2.response.headers.get("x-gateway-cache")).toBe("hit");
    expect(r2.data.output_text).toBe(r1.data.output_text);
    const streamed = () => settled(secret, async () => {
      const s = await openai.responses.create({ model: MODEL, input: "respond streamed", temperature: 0, stream: true }, USE).withResponse();
      const types: string[] = [];
      for await (const e of s.data) types.push(e.type);
      return { cache: s.response.headers.get("x-gateway-cache"), types };
    }, (r) => r.cache);
    const [s1, s2] = [await streamed(), await streamed()];
    expect([s1.cache, s2.cache]).toEqual(["miss", "hit"]);
    expect(s2.types).toEqual(s1.types);
    expect(s2.types.at(-1)).toBe("response.completed");

    const anthropic = new Anthropic({ apiKey: secret, baseURL: baseUrl(), maxRetries: 0, defaultHeaders: { "x-gateway-cache": "use" } });
    const m1 = await sdk(secret, () => anthropic.messages.create({ model: MODEL, max_tokens: 32, messages: [{ role: "user", content: "hello claude" }] }).withResponse());
    const m2 = await anthropic.messages.create({ model: MODEL, max_tokens: 32, messages: [{ role: "user", content: "hello claude" }] }).withResponse();
    expect([m1.response.headers.get("x-gateway-cache"), m2.response.headers.get("x-gateway-cache")]).toEqual(["miss", "hit"]);
    expect(m2.data.content).toEqual(m1.data.content);
    // A stateful responses call is never cached.
    const chained = await openai.responses.create({ model: MODEL, input: "next", previous_response_id: r1.data.id }, USE).withResponse();
    expect(chained.response.headers.get("x-gateway-cache")).toBe("bypass");
  });

  it("skips sampled calls unless the workspace allows them; refresh stores without reading; bypass neither; a TTL ends an entry; bad headers are 400", async () => {
    const { workspace, secret } = await cachedWorkspace();
    const sampled = { model: MODEL, messages: [{ role: "user", content: "sampled" }], temperature: 0.8, max_tokens: 8 };
    expect((await chat(secret, sampled)).cache).toBe("bypass");
    expect((await chat(secret, { ...sampled, seed: 7 })).cache).toBe("miss");
    expect((await chat(secret, { ...sampled, seed: 7 })).cache).toBe("hit");
    await setCacheSettings(workspace.id, { sampling: true });
    await new Promise((r) => setTimeout(r, 300)); // the settings' NOTIFY reaches the gateway
    expect((await chat(secret, sampled)).cache).toBe("miss");
    expect((await chat(secret, sampled)).cache).toBe("hit");

    expect((await chat(secret, ask("refreshed"), { "x-gateway-cache": "refresh" })).cache).toBe("miss");
    expect((await chat(secret, ask("refreshed"), { "x-gateway-cache": "refresh" })).cache).toBe("miss");
    expect((await chat(secret, ask("refreshed"))).cache).toBe("hit");
    expect((await chat(secret, ask("refreshed"), { "x-gateway-cache": "bypass" })).cache).toBe("bypass");

    expect((await chat(secret, ask("short-lived"), { "x-gateway-cache": "use", "x-gateway-cache-ttl": "1" })).cache).toBe("miss");
    expect((await chat(secret, ask("short-lived"))).cache).toBe("hit");
    await new Promise((r) => setTimeout(r, 1100));
    expect((await chat(secret, ask("short-lived"))).cache).toBe("miss");

    const bad = await chat(secret, ask("bad"), { "x-gateway-cache": "sometimes" });
    expect(bad.status).toBe(400);
    expect(bad.cache).toBe("bypass"); // every answer of a cached operation says what the cache did
    expect(JSON.parse(bad.text).error).toMatchObject({ type: "invalid_request_error", param: "x-gateway-cache" });
    const tooLong = await chat(secret, ask("bad"), { "x-gateway-cache": "use", "x-gateway-cache-ttl": String(10 * 86_400) });
    expect(tooLong.status).toBe(400);
    expect(JSON.parse(tooLong.text).error.param).toBe("x-gateway-cache-ttl");
    // A refused call stores nothing.
    expect((await chat(secret, { ...ask("no such"), model: "no-such-model" })).status).toBe(404);
    expect(await db.responseCacheEntry.count({ where: { workspaceId: workspace.id, modelId: "no-such-model" } })).toBe(0);
  });

  it("never answers one workspace with another's entry, nor a key with its own scope from the rest", async () => {
    const a = await cachedWorkspace();
    const b = await cachedWorkspace();
    expect((await chat(a.secret, ask("shared question"))).cache).toBe("miss");
    expect((await chat(b.secret, ask("shared question"))).cache).toBe("miss");
    expect((await chat(a.secret, ask("shared question"))).cache).toBe("hit");

    const own = await createKey(db, { workspaceId: a.workspace.id, name: "own scope" });
    workspaceOf.set(own.secret, a.workspace.id);
    await setKeyCache(a.workspace.id, own.key.id, { own_scope: true });
    expect((await chat(own.secret, ask("shared question"))).cache).toBe("miss");
    expect((await chat(own.secret, ask("shared question"))).cache).toBe("hit");
    // The workspace's entry and the key's are two.
    expect(await db.responseCacheEntry.count({ where: { workspaceId: a.workspace.id } })).toBe(2);
  });

  it("a plan may turn the cache on for its calls and keep them in its own scope, audited", async () => {
    const { workspace } = await cachedWorkspace();
    const plan = await db.plan.create({ data: { id: `plan_${workspace.id}`, workspaceId: workspace.id, name: "cached plan", models: [] } });
    const onPlan = await createKey(db, { workspaceId: workspace.id, name: "on the plan", planId: plan.id });
    workspaceOf.set(onPlan.secret, workspace.id);
    expect(await setPlanCache(workspace.id, plan.id, { default_on: true, own_scope: true })).toEqual({ default_on: true, own_scope: true });
    // No header: the plan's default (`use`); its entry in the plan's scope.
    expect((await chat(onPlan.secret, ask("planned"), {})).cache).toBe("miss");
    expect((await chat(onPlan.secret, ask("planned"), {})).cache).toBe("hit");
    expect(await db.responseCacheEntry.findMany({ where: { workspaceId: workspace.id }, select: { scope: true } })).toEqual([{ scope: `plan:${plan.id}` }]);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { workspaceId: workspace.id, action: "cache.update", targetType: "plan" } });
    expect(audit.changes).toEqual({ default_on: { from: null, to: true }, own_scope: { from: false, to: true } });
    await expect(setPlanCache(workspace.id, "plan_of_nobody", { default_on: true })).rejects.toMatchObject({ status: 404 });
  });

  it("clears a workspace's entries by model (tRPC's service and the CLI), audited", async () => {
    const { workspace, secret } = await cachedWorkspace();
    await chat(secret, ask("to clear"));
    expect((await chat(secret, ask("to clear"))).cache).toBe("hit");
    expect(await clearCache(workspace.id, { model: MODEL })).toMatchObject({ removed: 1 });
    await new Promise((r) => setTimeout(r, 300)); // the NOTIFY reaches every process's memory
    expect((await chat(secret, ask("to clear"))).cache).toBe("miss");
    const r = await cli("cache", "clear", workspace.id, "--model", MODEL, "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ object: "cache.cleared", removed: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await chat(secret, ask("to clear"))).cache).toBe("miss");
    const audit = await db.auditEvent.findMany({ where: { workspaceId: workspace.id, action: "cache.clear" } });
    expect(audit.map((e) => e.actorType).sort()).toEqual(["cli", "system"]);
  });
});

describe("the response cache across instances", () => {
  let one: GatewayInstance;
  let two: GatewayInstance;
  beforeAll(async () => {
    [one, two] = await Promise.all([startGatewayInstance(), startGatewayInstance()]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
  });

  // A miss is written to PostgreSQL just after its answer went out: another instance sees it then.
  const stored = (workspaceId: string) => until(() => db.responseCacheEntry.count({ where: { workspaceId } }), (n) => n === 1, 5000);

  it("shares one cache: a miss on one instance is a hit on the other, and a clear reaches both memories", async () => {
    const { workspace, secret } = await cachedWorkspace();
    expect((await chat(secret, ask("two instances"), undefined, one.url)).cache).toBe("miss");
    await stored(workspace.id);
    expect((await chat(secret, ask("two instances"), undefined, two.url)).cache).toBe("hit");
    expect((await chat(secret, ask("two instances"), undefined, one.url)).cache).toBe("hit");
    await clearCache(workspace.id);
    await new Promise((r) => setTimeout(r, 300)); // the NOTIFY reaches both
    expect((await chat(secret, ask("two instances"), undefined, two.url)).cache).toBe("miss");
    await stored(workspace.id);
    expect((await chat(secret, ask("two instances"), undefined, one.url)).cache).toBe("hit");
  });
});

