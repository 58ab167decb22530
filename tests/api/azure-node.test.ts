// An `azure` node (Azure OpenAI) behind the gateway, called with the official OpenAI and
// Anthropic clients. First the stand-in itself is checked with the openai package's AzureOpenAI
// client. Then a node with the resource's key and an api-version (deployment paths): chat plain
// and streamed, tools, images, json_schema, stops, the responses API, embeddings and /v1/messages,
// what the node received checked to the field and the usage billed exactly; Azure's errors (429
// with Retry-After, context overflow, content filter, a refused key); and the CLI's flags. Last,
// a node with a Microsoft Entra ID application (the v1 paths): @azure/identity's
// ClientSecretCredential gets its token from an https stand-in (MSAL takes https authorities
// only) named by AZURE_AUTHORITY_HOST and trusted through NODE_EXTRA_CA_CERTS. Those are read
// at a process's start, so that node is served by a gateway instance of its own, on a scratch
// database (on the shared one, every other process would health-check the node without that
// authority and mark it offline). The models and nodes here exist only for this file.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { AzureOpenAI } from "openai";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { db, disconnectDb, useDatabase } from "../../server/infra/db/client";
import { applyMigrations } from "../../server/infra/db/migrate";
import { formatMoney, money } from "../../server/kernel/money";
import { chatModelCard } from "../fakes/chat-model-card";
import { importModelCards } from "../../server/routing/catalog/import-catalog";
import type { ModelCard } from "../../server/routing/catalog/model-card";
import { setModelPrice } from "../../server/routing/catalog/set-price";
import { checkAllNodes } from "../../server/routing/nodes/health-check";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { REFUSED_CREDENTIALS } from "../../server/providers/azure/refused-credentials";
import {
  AZURE_KEY,
  ENTRA,
  JSON_TEXT,
  TEXT,
  USAGE,
  fakeVector,
  startAzureUpstream,
  startEntraStandIn,
  type AzureFake,
  type EntraFake,
} from "../fakes/azure-upstream";
import { cli } from "../cli-process";
import { baseUrl, newWorkspace } from "../helpers";
import { PNG, refreshRouting } from "../helpers-nodes";
import { startGatewayInstance, type GatewayInstance } from "../instances";

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CHAT = "azure-wiretest-gpt";
const EMBED = "azure-wiretest-embed";
const DEPLOYMENTS = { "gpt4o-prod": "gpt-4o", "embed-small": "text-embedding-3-small" };
const MAP = { [CHAT]: "gpt4o-prod", [EMBED]: "embed-small" };
const API_VERSION = "2024-10-21";
const PRICES = { input: "2.5", output: "10", cacheRead: "1.25" };
const EMBED_PRICES = { input: "0.02", output: "0" };
const TOOLS = [{ type: "function" as const, function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }];

const cost = (u: { prompt_tokens: number; completion_tokens: number; cached: number }) =>
  formatMoney(money(PRICES.input).times(u.prompt_tokens - u.cached).plus(money(PRICES.cacheRead).times(u.cached)).plus(money(PRICES.output).times(u.completion_tokens)).dividedBy(1_000_000));

function cards(): ModelCard[] {
  const embed = chatModelCard(EMBED);
  return [chatModelCard(CHAT), { ...embed, type: "embedding", capabilities: { ...embed.capabilities, tools: false, json_mode: false } }].map((c) => (c.type === "chat" ? { ...c, capabilities: { ...c.capabilities, structured_output: true } } : c)) as ModelCard[];
}

/** The catalog models, priced as these tests bill them. */
async function priceModels(): Promise<void> {
  await db.$transaction((tx) => importModelCards(tx, cards()));
  await setModelPrice({ model: CHAT, ...PRICES });
  await setModelPrice({ model: EMBED, ...EMBED_PRICES });
}

async function collect(stream: AsyncIterable<Any>) {
  let content = "";
  let finish: string | null = null;
  let usage: Any | undefined;
  const calls: Any[] = [];
  const models = new Set<string>();
  for await (const chunk of stream) {
    models.add(chunk.model);
    const choice = chunk.choices[0];
    content += choice?.delta?.content ?? "";
    finish = choice?.finish_reason ?? finish;
    if (chunk.usage) usage = chunk.usage;
    for (const d of choice?.delta?.tool_calls ?? []) {
      const at = (calls[d.index] ??= { id: d.id, type: d.type, function: { name: d.function?.name, arguments: "" } });
      at.function.arguments += d.function?.arguments ?? "";
    }
  }
  return { content, finish, usage, calls, models };
}

describe("the Azure stand-in, checked by the openai package's AzureOpenAI client", () => {
  let fake: AzureFake;
  beforeAll(async () => void (fake = await startAzureUpstream(DEPLOYMENTS)));
  afterAll(() => fake.close());

  it("answers chat, streamed chat and embeddings on deployment paths as the official client expects", async () => {
    const azure = new AzureOpenAI({ endpoint: fake.url, apiKey: AZURE_KEY, apiVersion: API_VERSION, deployment: "gpt4o-prod", maxRetries: 0 });
    const c = await azure.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }] });
    expect(fake.last).toMatchObject({ path: "/openai/deployments/gpt4o-prod/chat/completions", headers: { "api-key": AZURE_KEY } });
    expect(fake.last!.query.get("api-version")).toBe(API_VERSION);
    expect(c.choices[0]!.message.content).toBe(TEXT.join(""));
    expect(c.usage).toMatchObject({ prompt_tokens: 31, prompt_tokens_details: { cached_tokens: 10 } });
    const streamed = await collect((await azure.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }], stream: true, stream_options: { include_usage: true } })) as never);
    expect(streamed).toMatchObject({ content: TEXT.join(""), finish: "stop", usage: USAGE });
    const embedder = new AzureOpenAI({ endpoint: fake.url, apiKey: AZURE_KEY, apiVersion: API_VERSION, deployment: "embed-small", maxRetries: 0 });
    const e = await embedder.embeddings.create({ model: "text-embedding-3-small", input: ["alpha", "beta"] });
    expect(fake.last!.path).toBe("/openai/deployments/embed-small/embeddings");
    expect(e.data.map((d) => d.embedding)).toEqual([fakeVector("alpha"), fakeVector("beta")]);
  });

  it("refuses a wrong key, a missing or unknown api-version and an unknown deployment with Azure's errors", async () => {
    const wrong = new AzureOpenAI({ endpoint: fake.url, apiKey: "nope", apiVersion: API_VERSION, deployment: "gpt4o-prod", maxRetries: 0 });
    await expect(wrong.chat.completions.create({ model: "x", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 401 });
    const old = new AzureOpenAI({ endpoint: fake.url, apiKey: AZURE_KEY, apiVersion: "2019-01-01", deployment: "gpt4o-prod", maxRetries: 0 });
    await expect(old.chat.completions.create({ model: "x", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 400, error: { code: "BadRequest" } });
    const none = await fetch(`${fake.url}/openai/deployments/gpt4o-prod/chat/completions`, { method: "POST", headers: { "api-key": AZURE_KEY }, body: "{}" });
    expect(none.status).toBe(404);
    const missing = new AzureOpenAI({ endpoint: fake.url, apiKey: AZURE_KEY, apiVersion: API_VERSION, deployment: "gone", maxRetries: 0 });
    await expect(missing.chat.completions.create({ model: "x", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 404, code: "DeploymentNotFound" });
  });
});

describe("an azure node with the resource's key and an api-version", () => {
  let fake: AzureFake;
  let openai: OpenAI;
  let nodeId: string;
  const sent = () => fake.last!.body as Any;
  const ask = (extra: Any = {}) => openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "hello" }], ...extra } as never) as unknown as Promise<Any>;
  const eventOf = (requestId: string) => db.usageEvent.findUniqueOrThrow({ where: { id: requestId } });

  beforeAll(async () => {
    fake = await startAzureUpstream(DEPLOYMENTS);
    await db.$transaction((tx) => importModelCards(tx, cards()));
    const added = await addNode({ name: "azure-wire-key", url: fake.url, wire: "azure", apiKey: AZURE_KEY, cloud: { apiVersion: API_VERSION }, models: MAP, city: "Amsterdam", country: "NL" });
    nodeId = added.node.id;
    // Discovery listed the deployments on the data plane, with the key.
    expect(added.discovered).toBe(2);
    expect(fake.requests[0]).toMatchObject({ method: "GET", path: "/openai/deployments", headers: { "api-key": AZURE_KEY } });
    expect(fake.requests[0]!.query.get("api-version")).toBe("2022-12-01");
    await priceModels();
    await refreshRouting();
    ({ openai } = await newWorkspace("10"));
  }, 120_000);

  afterAll(async () => {
    await removeNode(nodeId).catch(() => undefined);
    await db.model.deleteMany({ where: { id: { in: [CHAT, EMBED] } } });
    await fake?.close();
  });

  it("a plain chat: the deployment path with the api-version, the key in api-key; the usage (cached tokens) billed exactly", async () => {
    const { data: c, response } = await openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "hello" }] }).withResponse();
    expect(fake.last!.path).toBe("/openai/deployments/gpt4o-prod/chat/completions");
    expect(fake.last!.query.get("api-version")).toBe(API_VERSION);
    expect(fake.last!.headers).toMatchObject({ "api-key": AZURE_KEY, "content-type": "application/json" });
    expect(fake.last!.headers.authorization).toBeUndefined();
    expect(sent()).toEqual({ model: "gpt4o-prod", messages: [{ role: "user", content: "hello" }], stream: false });
    expect(c).toMatchObject({ object: "chat.completion", model: CHAT, choices: [{ finish_reason: "stop", message: { role: "assistant", content: TEXT.join("") } }], usage: USAGE });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ modelId: CHAT, inputTokens: 31, cachedTokens: 10, outputTokens: 7, usageEstimated: false });
    expect(formatMoney(event.cost)).toBe(cost({ ...USAGE, cached: 10 }));
  });

  it("stop and max_tokens reach the node; its finish reasons (stop, length) come back", async () => {
    const stopped = await ask({ stop: [" Azure."], temperature: 0.2 });
    expect(sent()).toMatchObject({ stop: [" Azure."], temperature: 0.2 });
    expect(stopped.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: "Hello from" } });
    const cut = await ask({ max_completion_tokens: 1 });
    expect(sent().max_completion_tokens).toBe(1);
    expect(cut.choices[0]).toMatchObject({ finish_reason: "length", message: { content: "Hello" } });
  });

  it("a streamed chat equals the whole one: include_usage asked of the node, Azure's prompt annotation chunk left out, billed", async () => {
    const whole = await ask();
    const { data: stream, response } = await openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "hello" }], stream: true, stream_options: { include_usage: true } }).withResponse();
    const got = await collect(stream as never);
    expect(sent()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(got.content).toBe(whole.choices[0].message.content);
    expect(got.finish).toBe(whole.choices[0].finish_reason);
    expect(got.usage).toEqual(whole.usage);
    expect([...got.models]).toEqual([CHAT]);
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(formatMoney(event.cost)).toBe(cost({ ...USAGE, cached: 10 }));
    // Without include_usage the client gets no usage chunk (the gateway asked for it all the same).
    const quiet = await collect((await openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "hello" }], stream: true })) as never);
    expect(sent().stream_options).toEqual({ include_usage: true });
    expect(quiet.usage).toBeUndefined();
  });

  it("tools, a call and its result, and parallel calls plain and streamed", async () => {
    const first = await ask({ messages: [{ role: "user", content: "Weather in Paris?" }], tools: TOOLS, tool_choice: "required" });
    expect(sent()).toMatchObject({ tools: TOOLS, tool_choice: "required" });
    expect(first.choices[0]).toMatchObject({ finish_reason: "tool_calls", message: { tool_calls: [{ id: "call_wx1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] } });
    const messages = [{ role: "user", content: "Weather in Paris?" }, first.choices[0].message, { role: "tool", tool_call_id: "call_wx1", content: "sunny" }];
    const second = await ask({ messages, tools: TOOLS });
    expect(sent().messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_wx1", content: "sunny" });
    expect(second.choices[0].message.content).toBe("It is sunny in Paris.");
    const parallel = { messages: [{ role: "user", content: "parallel: Paris weather and Tokyo time" }], tools: TOOLS, parallel_tool_calls: true };
    const plain = await ask(parallel);
    expect(sent().parallel_tool_calls).toBe(true);
    const expected = [
      { id: "call_wx1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      { id: "call_tm2", type: "function", function: { name: "get_time", arguments: '{"zone":"Asia/Tokyo"}' } },
    ];
    expect(plain.choices[0].message.tool_calls).toEqual(expected);
    const streamed = await collect((await openai.chat.completions.create({ model: CHAT, stream: true, ...parallel } as never)) as never);
    expect(streamed.calls).toEqual(expected);
    expect(streamed.finish).toBe("tool_calls");
  });

  it("an image input and json_schema go to the node as sent", async () => {
    const content = [
      { type: "text", text: "Describe" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "low" } },
    ];
    await ask({ messages: [{ role: "user", content }] });
    expect(sent().messages).toEqual([{ role: "user", content }]);
    const schema = { type: "object", properties: { city: { type: "string" }, temp: { type: "number" } }, required: ["city", "temp"], additionalProperties: false };
    const response_format = { type: "json_schema", json_schema: { name: "weather", schema, strict: true } };
    const c = await ask({ response_format });
    expect(sent().response_format).toEqual(response_format);
    expect(JSON.parse(c.choices[0].message.content)).toEqual(JSON.parse(JSON_TEXT.join("")));
  });

  it("the responses API, plain and streamed, through the chat deployment", async () => {
    const r = await openai.responses.create({ model: CHAT, input: "hello", instructions: "Be kind", max_output_tokens: 300 });
    expect(fake.last!.path).toBe("/openai/deployments/gpt4o-prod/chat/completions");
    expect(sent().messages).toEqual([
      { role: "system", content: "Be kind" },
      { role: "user", content: "hello" },
    ]);
    expect(r.output_text).toBe(TEXT.join(""));
    expect(r.usage).toMatchObject({ input_tokens: 31, output_tokens: 7, input_tokens_details: { cached_tokens: 10 } });
    let text = "";
    for await (const event of await openai.responses.create({ model: CHAT, input: "hello", stream: true })) if (event.type === "response.output_text.delta") text += event.delta;
    expect(text).toBe(TEXT.join(""));
  });

  it("embeddings on the embeddings deployment, floats and base64, with the node's usage", async () => {
    const { data: e, response } = await openai.embeddings.create({ model: EMBED, input: ["alpha", "beta gamma"], encoding_format: "float" }).withResponse();
    expect(fake.last!.path).toBe("/openai/deployments/embed-small/embeddings");
    expect(sent()).toMatchObject({ model: "embed-small", input: ["alpha", "beta gamma"] });
    expect(e.data.map((d) => d.embedding)).toEqual([fakeVector("alpha"), fakeVector("beta gamma")]);
    expect(e.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    expect(await eventOf(response.headers.get("x-request-id")!)).toMatchObject({ modelId: EMBED, inputTokens: 3, usageEstimated: false });
    const decoded = await openai.embeddings.create({ model: EMBED, input: "alpha" });
    expect(decoded.data[0]!.embedding).toEqual(fakeVector("alpha"));
  });

  it("Anthropic's Messages API on the node: translated to a chat completion and back, plain and streamed", async () => {
    const { secret } = await newWorkspace("1");
    const anthropic = new Anthropic({ apiKey: secret, baseURL: baseUrl(), maxRetries: 0 });
    const message = await anthropic.messages.create({ model: CHAT, max_tokens: 256, system: "Be brief.", messages: [{ role: "user", content: "hello" }] });
    expect(fake.last!.path).toBe("/openai/deployments/gpt4o-prod/chat/completions");
    expect(sent().messages[0]).toMatchObject({ role: "system" });
    expect(message).toMatchObject({ type: "message", model: CHAT, content: [{ type: "text", text: TEXT.join("") }], stop_reason: "end_turn", usage: { input_tokens: 21, cache_read_input_tokens: 10, output_tokens: 7 } });
    const streamed = await anthropic.messages.stream({ model: CHAT, max_tokens: 256, messages: [{ role: "user", content: "hello" }] }).finalMessage();
    expect(streamed.content).toMatchObject([{ type: "text", text: TEXT.join("") }]);
  });

  it("Azure's refusals about the request pass on as 400s: a content filter result, and a context overflow (code context_length_exceeded)", async () => {
    fake.mode = "filtered";
    const filtered = await ask().catch((e: Any) => e);
    fake.mode = "overflow";
    const overflow = await ask().catch((e: Any) => e);
    fake.mode = "ok";
    expect(filtered).toMatchObject({ status: 400, code: "content_filter", param: "prompt" });
    expect(filtered.error.message).toContain("content management policy");
    expect(overflow).toMatchObject({ status: 400, code: "context_length_exceeded", param: "messages" });
  });

  it("a 429 answers 429 upstream_rate_limited with the node's Retry-After", async () => {
    fake.mode = "rate-limited";
    const limited = await ask().catch((e: Any) => e);
    fake.mode = "ok";
    expect(limited).toMatchObject({ status: 429, code: "upstream_rate_limited" });
    expect(limited.headers.get("retry-after")).toBe("7");
  });

  it("a refused key: the call fails with a 502 that shows no key; the node's last error tells the operator what to check", async () => {
    fake.mode = "refused";
    const failed = await ask().catch((e: Any) => e);
    expect(failed).toMatchObject({ status: 502, code: "upstream_auth_failed" });
    expect(JSON.stringify(failed.error)).not.toContain(AZURE_KEY);
    fake.mode = "revoked";
    await checkAllNodes();
    const row = await db.node.findUniqueOrThrow({ where: { id: nodeId } });
    fake.mode = "ok";
    expect(row.status).toBe("offline");
    expect(row.lastError).toBe(`${REFUSED_CREDENTIALS} (HTTP 401)`);
    expect(row.lastError).not.toContain(AZURE_KEY);
    await refreshRouting();
  });

  it("node add --wire azure through the CLI: the endpoint, key, api-version and deployments stored; the key never printed", async () => {
    const out = await cli("node", "add", "--name", "azure-wire-cli", "--wire", "azure", "--endpoint", fake.url, "--api-key", AZURE_KEY, "--api-version", "2025-04-01-preview", "--deployment", `${CHAT}=gpt4o-prod`, "--city", "Dublin", "--country", "IE", "--json");
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).not.toContain(AZURE_KEY);
    const added = JSON.parse(out.stdout) as Any;
    expect(added).toMatchObject({ discovered: 2, node: { name: "azure-wire-cli", wire: "azure", baseUrl: fake.url, hasApiKey: true } });
    expect(added.node.models.map((m: Any) => [m.model, m.upstreamModel])).toEqual([[CHAT, "gpt4o-prod"]]);
    const row = await db.node.findUniqueOrThrow({ where: { id: added.node.id } });
    expect(row.cloud).toEqual({ apiVersion: "2025-04-01-preview" });
    await removeNode(added.node.id);
    const missing = await cli("node", "add", "--name", "azure-wire-cli2", "--wire", "azure", "--api-key", AZURE_KEY, "--city", "Dublin", "--country", "IE", "--no-discover");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--endpoint https://<resource>.openai.azure.com");
  }, 90_000);
});

/** A database of its own on the test run's PostgreSQL server, migrated; dropped by `drop`. */
async function scratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = inject("databaseUrl");
  const name = `gateway_azure_${Date.now().toString(36)}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: server });
    await c.connect();
    await c.query(sql).finally(() => c.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  await applyMigrations(url.toString());
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

describe("an azure node with a Microsoft Entra ID application, on the v1 paths", () => {
  const LIFETIME_S = 320; // fresh for 20 s: refreshed 5 minutes before expiry
  let fake: AzureFake;
  let entra: EntraFake;
  let instance: GatewayInstance | undefined;
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  let openai: OpenAI;
  const bearer = () => fake.last!.headers.authorization;

  beforeAll(async () => {
    fake = await startAzureUpstream(DEPLOYMENTS);
    entra = await startEntraStandIn(fake, LIFETIME_S);
    scratch = await scratchDatabase();
    await disconnectDb();
    useDatabase(scratch.url);
    await priceModels();
    // This process cannot trust the stand-in's certificate (NODE_EXTRA_CA_CERTS is read at start): the instance discovers.
    await addNode({ name: "azure-wire-entra", url: fake.url, wire: "azure", credentials: { tenant_id: ENTRA.tenant, client_id: ENTRA.clientId, client_secret: ENTRA.clientSecret }, models: MAP, discover: false, city: "Paris", country: "FR" });
    ({ openai } = await newWorkspace("10"));
    instance = await startGatewayInstance({ env: { DATABASE_URL: scratch.url, AZURE_AUTHORITY_HOST: entra.authorityHost, NODE_EXTRA_CA_CERTS: entra.caFile } });
    openai = new OpenAI({ apiKey: openai.apiKey, baseURL: `${instance.url}/v1`, maxRetries: 0 });
    // The instance's health check lists the models with its first token, and the node goes online.
    const deadline = Date.now() + 30_000;
    while ((await db.node.findFirstOrThrow({ where: { name: "azure-wire-entra" } })).status !== "online" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  }, 180_000);

  afterAll(async () => {
    await instance?.stop();
    await disconnectDb();
    await scratch?.drop();
    await entra?.close();
    await fake?.close();
  });

  it("the health check listed /openai/v1/models with a bearer token from Entra; no api-key was sent", async () => {
    const row = await db.node.findFirstOrThrow({ where: { name: "azure-wire-entra" } });
    expect(row, instance?.output()).toMatchObject({ status: "online", lastError: null });
    const list = fake.requests.find((r) => r.path === "/openai/v1/models")!;
    expect(list.headers.authorization).toBe(`Bearer ${entra.issued[0]!.token}`);
    expect(list.headers["api-key"]).toBeUndefined();
  });

  it("chat (plain and streamed) and embeddings on the v1 paths, the deployment as the body's model, billed", async () => {
    const c = await openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "hello" }] });
    expect(fake.last!.path).toBe("/openai/v1/chat/completions");
    expect(fake.last!.query.get("api-version")).toBeNull();
    expect(fake.last!.body).toMatchObject({ model: "gpt4o-prod" });
    expect(bearer()).toMatch(/^Bearer entra-token-\d+$/);
    expect(c).toMatchObject({ model: CHAT, choices: [{ message: { content: TEXT.join("") } }], usage: USAGE });
    const streamed = await collect((await openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "hello" }], stream: true, stream_options: { include_usage: true } })) as never);
    expect(streamed).toMatchObject({ content: TEXT.join(""), usage: USAGE });
    const e = await openai.embeddings.create({ model: EMBED, input: "alpha", encoding_format: "float" });
    expect(fake.last!.path).toBe("/openai/v1/embeddings");
    expect(fake.last!.body).toMatchObject({ model: "embed-small" });
    expect(e.data[0]!.embedding).toEqual(fakeVector("alpha"));
  });

  it("the token is fetched once and reused by every call, then fetched again once it is within 5 minutes of expiring", async () => {
    const fetched = entra.issued.length;
    const current = entra.issued.at(-1)!;
    const calls = await Promise.all([0, 1, 2, 3].map(() => openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "hello" }] })));
    expect(calls).toHaveLength(4);
    expect(entra.issued.length).toBe(fetched);
    expect(fake.requests.slice(-4).map((r) => r.headers.authorization)).toEqual(Array(4).fill(`Bearer ${current.token}`));
    // The refresh point: 5 minutes before its expiry (it lives 320 s, so 20 s after it was issued).
    await new Promise((r) => setTimeout(r, Math.max(0, current.expiresAt - 300_000 - Date.now() + 1500)));
    await openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "hello" }] });
    const next = entra.issued.at(-1)!;
    expect(next.token).not.toBe(current.token);
    expect(bearer()).toBe(`Bearer ${next.token}`);
    expect(entra.issued.length).toBe(fetched + 1);
  }, 60_000);
});
