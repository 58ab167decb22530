// A `vertex` node behind the gateway, called with the official OpenAI and Anthropic clients. The
// stand-in is both Vertex and the token endpoint its service account names: the gateway gets a
// token by the JWT bearer grant once and sends it on every call. The known publisher models are
// imported unpriced (refused until priced); Gemini models are served in Gemini's format (chat plain,
// streamed, tools, parallel calls, images, json_schema, stops, reasoning, the responses API),
// Claude models through rawPredict in Anthropic's (chat, and /v1/messages passed through), text
// embeddings through predict, billed from Vertex's token counts. What the node received is checked
// to the field, usage bills exactly (cache reads and writes, reasoning), and Vertex's refusals
// become the gateway's: 429 with Retry-After, 400 context_length_exceeded, an operator's 502 that
// names no credential. The models and nodes here exist only for this file.
import Anthropic from "@anthropic-ai/sdk";
import { availableParallelism } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import { db } from "../../server/infra/db/client";
import { formatMoney } from "../../server/kernel/money";
import { toolCallId } from "../../server/providers/gemini/tool-call-ids";
import { knownModels } from "../../server/providers/vertex/models";
import { setModelPrice } from "../../server/routing/catalog/set-price";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { FIXTURES, SIGNATURE as CLAUDE_SIGNATURE } from "../fakes/anthropic-upstream";
import { SIGNATURE, THINKING_USAGE, THOUGHT, TIME_CALL, USAGE, WEATHER_CALL, fakeVector } from "../fakes/gemini-upstream";
import { ANTHROPIC_VERSION, RETRY_DELAY_SECONDS, startVertexUpstream, tokenCount, type ServiceAccountKey, type VertexFake } from "../fakes/vertex-upstream";
import { baseUrl, newWorkspace } from "../helpers";
import { costOf, PNG, refreshRouting, refusedUntilPriced } from "../helpers-nodes";

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const GEMINI = "gemini-2.5-flash";
const CLAUDE = "claude-sonnet-4-5@20250929";
const EMBEDDING = "text-embedding-005";
const IDS = knownModels().map((m) => m.id);
const GEMINI_PRICES = { input: "0.3", output: "2.5", cacheRead: "0.075", reasoning: "3" };
const CLAUDE_PRICES = { input: "3", output: "15", cacheRead: "0.3", cacheWrite: "3.75" };
const EMBEDDING_PRICES = { input: "0.025", output: "0" };

let node: VertexFake;
let key: ServiceAccountKey;
const nodeIds: string[] = [];
let openai: OpenAI;

const ask = (extra: Record<string, unknown> = {}) => openai.chat.completions.create({ model: GEMINI, messages: [{ role: "user", content: "hello" }], ...extra } as never) as unknown as Promise<Any>;
const sent = () => node.last!.body as Any;
const user = (text: string) => ({ role: "user", parts: [{ text }] });
const path = (publisher: string, model: string, method: string) => `/v1/projects/${node.project}/locations/${node.location}/publishers/${publisher}/models/${model}:${method}`;
const eventOf = (requestId: string) => db.usageEvent.findUniqueOrThrow({ where: { id: requestId } });
const issuedTo = (email: string) => node.tokenRequests.filter((r) => r.email === email && r.issued).length;

/** Nothing of a credential in an answer: the key, its private part, a token. */
function expectNoCredential(text: string) {
  expect(text).not.toContain("PRIVATE KEY");
  expect(text).not.toContain(key.private_key.split("\n")[1]!);
  expect(text).not.toMatch(/ya29\./);
}

/** This file's nodes (all named vertex-wire-*) and models, from this run or one that died. */
async function removeLeftovers() {
  for (const n of await db.node.findMany({ where: { name: { startsWith: "vertex-wire-" } }, select: { id: true } })) await removeNode(n.id).catch(() => undefined);
  await db.model.deleteMany({ where: { id: { in: IDS } } });
}

beforeAll(async () => {
  await removeLeftovers();
  node = await startVertexUpstream();
  key = node.serviceAccount("gateway");
  const added = await addNode({ name: "vertex-wire-main", wire: "vertex", url: node.url, cloud: { project: node.project, location: node.location }, credentials: { service_account: key }, city: "Amsterdam", country: "NL" });
  nodeIds.push(added.node.id);
  expect(added.discoveryError).toBeUndefined();
  expect(added.importedModels.sort()).toEqual([...IDS].sort());
  await refreshRouting();
  ({ openai } = await newWorkspace("10"));
}, 120_000);

afterAll(async () => {
  await removeLeftovers();
  await node?.close();
});

describe("a vertex node", () => {
  it("its known publisher models are imported unpriced (chat, reasoning, embedding), and refused (400 model_not_priced) until priced", async () => {
    const stored = await db.node.findUniqueOrThrow({ where: { id: nodeIds[0]! } });
    expect(stored).toMatchObject({ baseUrl: node.url, wire: "vertex", cloud: { project: node.project, location: node.location } });
    expect(stored.credentialsEncrypted).not.toContain(key.client_email);
    const rows = await db.model.findMany({ where: { id: { in: [GEMINI, CLAUDE, EMBEDDING] } }, orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.id, r.type, r.pricingStatus, r.capReasoning])).toEqual([
      [CLAUDE, "chat", "unpriced", true],
      [GEMINI, "chat", "unpriced", true],
      [EMBEDDING, "embedding", "unpriced", false],
    ]);
    expect(rows[1]).toMatchObject({ contextLength: 1_048_576, maxOutputTokens: 65_536 });
    expect(rows[0]).toMatchObject({ contextLength: 200_000, maxOutputTokens: 64_000 });
    await refusedUntilPriced(
      ask,
      async () => {
        await setModelPrice({ model: GEMINI, ...GEMINI_PRICES });
        await setModelPrice({ model: CLAUDE, ...CLAUDE_PRICES });
        await setModelPrice({ model: EMBEDDING, ...EMBEDDING_PRICES });
      },
      () => node.requests.length,
    );
  });

  it("a plain chat on Gemini: generateContent under the project and location, with the bearer token; billed exactly with the cached tokens", async () => {
    const { data: c, response } = await openai.chat.completions.create({ model: GEMINI, messages: [{ role: "user", content: "hello" }] }).withResponse();
    expect(node.last!.path).toBe(path("google", GEMINI, "generateContent"));
    expect(node.last!.headers.authorization).toMatch(/^Bearer ya29\.test-\d+-gateway@/);
    expect(node.last!.headers["x-goog-api-key"]).toBeUndefined();
    expect(sent()).toEqual({ contents: [user("hello")] });
    expect(c).toMatchObject({
      object: "chat.completion",
      model: GEMINI,
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hello from Gemini." } }],
      usage: { prompt_tokens: 41, completion_tokens: 9, total_tokens: 50, prompt_tokens_details: { cached_tokens: 12 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ modelId: GEMINI, inputTokens: 41, cachedTokens: 12, outputTokens: 9, reasoningTokens: 0, usageEstimated: false });
    expect(formatMoney(event.cost)).toBe(costOf(GEMINI_PRICES, { input: 41, cached: 12, output: 9, reasoning: 0 }));
  });

  it("the token is fetched once by the JWT bearer grant and reused for every later call", async () => {
    // Every gateway process on the test database (each serving process of the test stack, other
    // test files' instances) health-checks this node with a token of its own, so how many were
    // issued in all is not this test's to count. What is: eight calls carry at most one token per
    // serving process, each fetched once and then reused.
    expect(issuedTo(key.client_email)).toBeGreaterThanOrEqual(1);
    const seen = node.requests.length;
    for (let i = 0; i < 6; i++) await ask();
    for (let i = 0; i < 2; i++) await openai.embeddings.create({ model: EMBEDDING, input: `token reuse ${i}` });
    // (Not the health checks' countTokens calls, which are not recorded.)
    const calls = node.requests.slice(seen).filter((r) => /:(generateContent|predict)$/.test(r.path));
    expect(calls).toHaveLength(8);
    const tokens = new Set(calls.map((r) => r.headers.authorization));
    expect(tokens.size).toBeLessThanOrEqual(availableParallelism());
    expect([...tokens].every((t) => /^Bearer ya29\./.test(String(t)))).toBe(true);
    expect(node.tokenRequests.every((r) => r.issued)).toBe(true);
  });

  it("a streamed chat equals the whole answer: text deltas, the finish reason, the usage chunk, billed the same", async () => {
    const whole = await ask();
    const { data: stream, response } = await openai.chat.completions
      .create({ model: GEMINI, messages: [{ role: "user", content: "hello" }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = "";
    let finish: string | null = null;
    let usage: Any | undefined;
    for await (const chunk of stream) {
      expect(chunk.model).toBe(GEMINI);
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(node.last!.path).toBe(`${path("google", GEMINI, "streamGenerateContent")}?alt=sse`);
    expect(sent()).toEqual({ contents: [user("hello")] });
    expect(text).toBe(whole.choices[0].message.content);
    expect(finish).toBe(whole.choices[0].finish_reason);
    for (const field of ["prompt_tokens", "completion_tokens", "total_tokens"]) expect(usage![field]).toBe(whole.usage[field]);
    expect(usage!.prompt_tokens_details.cached_tokens).toBe(whole.usage.prompt_tokens_details.cached_tokens);
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ inputTokens: 41, cachedTokens: 12, outputTokens: 9, usageEstimated: false });
    expect(formatMoney(event.cost)).toBe(costOf(GEMINI_PRICES, { input: 41, cached: 12, output: 9, reasoning: 0 }));
  });

  it("stops: stop sequences, max_tokens (MAX_TOKENS is length), system messages", async () => {
    const c = await openai.chat.completions.create({
      model: GEMINI,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "greet me" },
      ],
      stop: [" Gemini."],
      max_tokens: 40,
      temperature: 0.5,
    });
    expect(sent()).toEqual({ systemInstruction: { parts: [{ text: "Be brief." }] }, contents: [user("greet me")], generationConfig: { maxOutputTokens: 40, stopSequences: [" Gemini."], temperature: 0.5 } });
    expect(c.choices[0]!).toMatchObject({ finish_reason: "stop", message: { content: "Hello from" } });
    const cut = await openai.chat.completions.create({ model: GEMINI, messages: [{ role: "user", content: "go on" }], max_completion_tokens: 1 });
    expect(cut.choices[0]!).toMatchObject({ finish_reason: "length", message: { content: "Hello" } });
  });

  it("tools: a call out and its result back (Gemini's id and thought signature kept); parallel calls, plain and streamed", async () => {
    const weather = [{ type: "function" as const, function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    const first = await openai.chat.completions.create({ model: GEMINI, messages: [{ role: "user", content: "Weather in Paris?" }], tools: weather, tool_choice: "required" });
    expect(sent()).toMatchObject({ tools: [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: weather[0]!.function.parameters }] }], toolConfig: { functionCallingConfig: { mode: "ANY" } } });
    const id = toolCallId("fc-weather-1", 0, SIGNATURE);
    expect(first.choices[0]!).toMatchObject({ finish_reason: "tool_calls", message: { tool_calls: [{ id, type: "function", function: { name: "get_weather", arguments: JSON.stringify(WEATHER_CALL.args) } }] } });
    const second = await openai.chat.completions.create({
      model: GEMINI,
      tools: weather,
      messages: [{ role: "user", content: "Weather in Paris?" }, first.choices[0]!.message, { role: "tool", tool_call_id: id, content: '{"sky":"sunny"}' }],
    });
    expect(sent().contents.slice(1)).toEqual([
      { role: "model", parts: [{ functionCall: { id: "fc-weather-1", ...WEATHER_CALL }, thoughtSignature: SIGNATURE }] },
      { role: "user", parts: [{ functionResponse: { id: "fc-weather-1", name: "get_weather", response: { sky: "sunny" } } }] },
    ]);
    expect(second.choices[0]!.message.content).toBe("It is sunny in Paris.");

    const tools = ["get_weather", "get_time"].map((name) => ({ type: "function" as const, function: { name, parameters: { type: "object" } } }));
    const expected = [
      { id: toolCallId(undefined, 0, SIGNATURE), type: "function", function: { name: "get_weather", arguments: JSON.stringify(WEATHER_CALL.args) } },
      { id: "call_1", type: "function", function: { name: "get_time", arguments: JSON.stringify(TIME_CALL.args) } },
    ];
    const plain = await openai.chat.completions.create({ model: GEMINI, messages: [{ role: "user", content: "parallel: Paris and Tokyo" }], tools });
    expect(plain.choices[0]!.message.tool_calls).toEqual(expected);
    const stream = await openai.chat.completions.create({ model: GEMINI, messages: [{ role: "user", content: "parallel: Paris and Tokyo" }], tools, stream: true });
    const calls: Any[] = [];
    for await (const chunk of stream) {
      for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
        const at = (calls[d.index] ??= { id: d.id, type: d.type, function: { name: d.function?.name, arguments: "" } });
        at.function.arguments += d.function?.arguments ?? "";
      }
    }
    expect(calls).toEqual(expected);
  });

  it("images (a data: URL inline, an https URL as a file) and json_schema", async () => {
    const images = [`data:image/png;base64,${PNG}`, "https://example.com/a.png"].map((url) => ({ type: "image_url" as const, image_url: { url } }));
    await openai.chat.completions.create({ model: GEMINI, messages: [{ role: "user", content: [{ type: "text", text: "Describe" }, ...images] }] });
    expect(sent().contents).toEqual([{ role: "user", parts: [{ text: "Describe" }, { inlineData: { mimeType: "image/png", data: PNG } }, { fileData: { fileUri: "https://example.com/a.png", mimeType: "image/png" } }] }]);
    const schema = { type: "object", properties: { city: { type: "string" }, temp: { type: "number" } }, required: ["city", "temp"], additionalProperties: false };
    const c = await openai.chat.completions.create({ model: GEMINI, messages: [{ role: "user", content: "as JSON" }], response_format: { type: "json_schema", json_schema: { name: "w", schema, strict: true } } });
    expect(sent().generationConfig).toEqual({ responseMimeType: "application/json", responseJsonSchema: schema });
    expect(JSON.parse(c.choices[0]!.message.content!)).toEqual({ city: "Paris", temp: 21 });
  });

  it("reasoning: thoughts as reasoning_content, thoughtsTokenCount billed at the reasoning price, cached tokens at the cache price", async () => {
    const { data, response } = await openai.chat.completions.create({ model: GEMINI, messages: [{ role: "user", content: "hello" }], reasoning_effort: "high" }).withResponse();
    const c = data as Any;
    expect(sent().generationConfig.thinkingConfig).toMatchObject({ includeThoughts: true });
    expect(c.choices[0].message).toMatchObject({ content: "Hello from Gemini.", reasoning_content: THOUGHT.join("") });
    const tokens = { input: THINKING_USAGE.promptTokenCount, cached: THINKING_USAGE.cachedContentTokenCount, output: THINKING_USAGE.candidatesTokenCount + THINKING_USAGE.thoughtsTokenCount, reasoning: THINKING_USAGE.thoughtsTokenCount };
    expect(c.usage).toMatchObject({ prompt_tokens: tokens.input, completion_tokens: tokens.output, completion_tokens_details: { reasoning_tokens: tokens.reasoning }, prompt_tokens_details: { cached_tokens: tokens.cached } });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ inputTokens: tokens.input, cachedTokens: tokens.cached, outputTokens: tokens.output, reasoningTokens: tokens.reasoning, usageEstimated: false });
    expect(formatMoney(event.cost)).toBe(costOf(GEMINI_PRICES, tokens));
  });

  it("a chat on Claude: rawPredict with Anthropic's request (no model, Vertex's anthropic_version); stops; cache reads and writes billed exactly, plain and streamed", async () => {
    node.fixture = FIXTURES.text;
    const c = await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: "user", content: "hello" }], max_tokens: 100 });
    expect(node.last!.path).toBe(path("anthropic", CLAUDE, "rawPredict"));
    expect(sent()).toEqual({ anthropic_version: ANTHROPIC_VERSION, max_tokens: 100, messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }] });
    expect(c.choices[0]!).toMatchObject({ finish_reason: "stop", message: { content: "Hello! How can I help you today?" } });

    node.fixture = FIXTURES.stopSequence;
    expect((await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: "user", content: "count" }], stop: ["four"] })).choices[0]!.finish_reason).toBe("stop");
    node.fixture = FIXTURES.maxTokens;
    expect((await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: "user", content: "count" }], max_tokens: 5 })).choices[0]!.finish_reason).toBe("length");
    node.fixture = FIXTURES.parallel;
    const tools = ["get_weather", "get_time"].map((name) => ({ type: "function" as const, function: { name, parameters: { type: "object" } } }));
    const called = await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: "user", content: "Paris?" }], tools });
    expect(called.choices[0]!.finish_reason).toBe("tool_calls");
    expect(called.choices[0]!.message.tool_calls!.map((t) => t.id)).toEqual(["toolu_01Pa1", "toolu_01Pa2"]);

    node.fixture = FIXTURES.cached;
    const tokens = { input: 4607, cached: 3400, written: 1200, output: 9, reasoning: 0 };
    const { data, response } = await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: "user", content: "from the doc?" }] }).withResponse();
    expect(data.usage).toMatchObject({ prompt_tokens: 4607, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 3400, cache_write_tokens: 1200 } });
    const plain = await eventOf(response.headers.get("x-request-id")!);
    expect(plain).toMatchObject({ modelId: CLAUDE, inputTokens: 4607, cachedTokens: 3400, cacheWriteTokens: 1200, outputTokens: 9, usageEstimated: false });
    expect(formatMoney(plain.cost)).toBe(costOf(CLAUDE_PRICES, tokens));

    const streamed = await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: "user", content: "from the doc?" }], stream: true }).withResponse();
    let text = "";
    for await (const chunk of streamed.data) text += chunk.choices[0]?.delta.content ?? "";
    expect(node.last!.path).toBe(path("anthropic", CLAUDE, "streamRawPredict"));
    expect(sent()).toMatchObject({ anthropic_version: ANTHROPIC_VERSION, stream: true });
    expect(text).toBe("From the cached document: yes.");
    const event = await eventOf(streamed.response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ inputTokens: 4607, cachedTokens: 3400, cacheWriteTokens: 1200, outputTokens: 9, usageEstimated: false });
    expect(formatMoney(event.cost)).toBe(costOf(CLAUDE_PRICES, tokens));
    node.fixture = FIXTURES.text;
  });

  it("the responses API on the node, plain and streamed", async () => {
    const r = await openai.responses.create({ model: GEMINI, input: "hello", instructions: "Be kind", max_output_tokens: 300 });
    expect(sent()).toEqual({ systemInstruction: { parts: [{ text: "Be kind" }] }, contents: [user("hello")], generationConfig: { maxOutputTokens: 300 } });
    expect(r.status).toBe("completed");
    expect(r.output_text).toBe("Hello from Gemini.");
    expect(r.usage).toMatchObject({ input_tokens: 41, output_tokens: 9, input_tokens_details: { cached_tokens: 12 } });
    const stream = await openai.responses.create({ model: GEMINI, input: "hello", stream: true });
    let text = "";
    for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta;
    expect(node.last!.path).toBe(`${path("google", GEMINI, "streamGenerateContent")}?alt=sse`);
    expect(text).toBe("Hello from Gemini.");
  });

  it("embeddings through predict: dimensions as outputDimensionality, usage from Vertex's token counts (not estimated), billed exactly", async () => {
    const inputs = ["The quick brown fox", "jumps over the lazy dog"];
    const counted = inputs.reduce((n, t) => n + tokenCount(t), 0);
    const { data, response } = await openai.embeddings.create({ model: EMBEDDING, input: inputs, dimensions: 4, encoding_format: "float" }).withResponse();
    expect(node.last!.path).toBe(path("google", EMBEDDING, "predict"));
    expect(sent()).toEqual({ instances: inputs.map((content) => ({ content })), parameters: { outputDimensionality: 4 } });
    expect(data.data.map((d) => [d.index, d.embedding])).toEqual(inputs.map((t, i) => [i, fakeVector(t, 4)]));
    expect(data.usage).toEqual({ prompt_tokens: counted, total_tokens: counted });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ modelId: EMBEDDING, inputTokens: counted, outputTokens: 0, usageEstimated: false });
    expect(formatMoney(event.cost)).toBe(costOf(EMBEDDING_PRICES, { input: counted, cached: 0, output: 0, reasoning: 0 }));
    const decoded = await openai.embeddings.create({ model: EMBEDDING, input: "gamma" });
    expect(decoded.data[0]!.embedding).toEqual(fakeVector("gamma"));
  });

  it("/v1/messages on Claude passes through to rawPredict (cache_control, thinking, tool_use intact), plain and streamed; on Gemini it is translated", async () => {
    const { secret } = await newWorkspace("1");
    const anthropic = new Anthropic({ apiKey: secret, baseURL: baseUrl(), maxRetries: 0 });
    const request = {
      model: CLAUDE,
      max_tokens: 2048,
      system: [{ type: "text" as const, text: "Answer from the handbook.", cache_control: { type: "ephemeral" as const } }],
      thinking: { type: "enabled" as const, budget_tokens: 1024 },
      tools: [{ name: "get_weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } }, cache_control: { type: "ephemeral" as const } }],
      messages: [
        { role: "user" as const, content: "Weather?" },
        {
          role: "assistant" as const,
          content: [
            { type: "thinking" as const, thinking: "Call the tool.", signature: CLAUDE_SIGNATURE },
            { type: "tool_use" as const, id: "toolu_01", name: "get_weather", input: { city: "Paris" } },
          ],
        },
        { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "toolu_01", content: "sunny", cache_control: { type: "ephemeral" as const } }] },
      ],
    };
    node.fixture = FIXTURES.cached;
    const message = await anthropic.messages.create(request);
    expect(node.last!.path).toBe(path("anthropic", CLAUDE, "rawPredict"));
    const { model: _model, ...rest } = request;
    expect(sent()).toEqual({ ...rest, anthropic_version: ANTHROPIC_VERSION });
    expect(message).toMatchObject({ type: "message", model: CLAUDE, content: [{ type: "text", text: "From the cached document: yes." }], usage: { input_tokens: 7, cache_read_input_tokens: 3400, cache_creation_input_tokens: 1200 } });

    const streamed = await anthropic.messages.stream(request).finalMessage();
    expect(node.last!.path).toBe(path("anthropic", CLAUDE, "streamRawPredict"));
    expect(sent()).toEqual({ ...rest, stream: true, anthropic_version: ANTHROPIC_VERSION });
    expect(streamed.content).toMatchObject([{ type: "text", text: "From the cached document: yes." }]);
    expect(streamed.usage).toMatchObject({ cache_read_input_tokens: 3400, cache_creation_input_tokens: 1200, output_tokens: 9 });
    node.fixture = FIXTURES.text;

    const translated = await anthropic.messages.create({ model: GEMINI, max_tokens: 256, messages: [{ role: "user", content: "hello" }] });
    expect(node.last!.path).toBe(path("google", GEMINI, "generateContent"));
    expect(translated.content).toMatchObject([{ type: "text", text: "Hello from Gemini." }]);
  });

  it("a prompt too long (Gemini's INVALID_ARGUMENT, Claude's 'prompt is too long') answers 400 context_length_exceeded", async () => {
    node.mode = "overflow";
    const gemini = await ask().catch((e: Any) => e);
    const claude = await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: "user", content: "long" }] }).catch((e: Any) => e);
    node.mode = "ok";
    expect(gemini).toMatchObject({ status: 400, code: "context_length_exceeded", error: { message: expect.stringContaining("exceeds the maximum number of tokens") } });
    expect(claude).toMatchObject({ status: 400, code: "context_length_exceeded", error: { message: expect.stringContaining("prompt is too long") } });
  });

  it("RESOURCE_EXHAUSTED answers 429 upstream_rate_limited with Vertex's retry delay as Retry-After", async () => {
    node.mode = "exhausted";
    const limited = await ask().catch((e: Any) => e);
    node.mode = "ok";
    expect(limited).toMatchObject({ status: 429, code: "upstream_rate_limited" });
    expect(limited.headers.get("retry-after")).toBe(String(RETRY_DELAY_SECONDS));
  });

  it("a permission missing or a token refused by Vertex answers 502, naming no credential; the next call is served", async () => {
    for (const mode of ["denied", "unauthenticated"] as const) {
      node.mode = mode;
      const failed = await ask().catch((e: Any) => e);
      node.mode = "ok";
      expect(failed).toMatchObject({ status: 502, code: "upstream_auth_failed", error: { message: expect.stringMatching(/refused the gateway.s credentials; Vertex AI (refused|did not accept)/) } });
      expectNoCredential(JSON.stringify(failed.error));
    }
    expect((await ask()).object).toBe("chat.completion");
  });

  it("a service account the token endpoint refuses: discovery and the health check fail with a message for the operator, naming no credential", async () => {
    const stranger = node.serviceAccount("stranger", false);
    const added = await addNode({ name: "vertex-wire-stranger", wire: "vertex", url: node.url, cloud: { project: node.project, location: node.location }, credentials: { service_account: stranger }, city: "Amsterdam", country: "NL", discover: true });
    nodeIds.push(added.node.id);
    expect(added.importedModels).toEqual([]);
    expect(added.discoveryError).toContain(`no Google access token could be had for the service account ${stranger.client_email}: invalid_grant: Invalid JWT Signature.`);
    await refreshRouting();
    const stored = await db.node.findUniqueOrThrow({ where: { id: added.node.id } });
    expect(stored.status).toBe("offline");
    expect(stored.lastError).toBe(added.discoveryError);
    expect(stored.lastError).not.toContain(stranger.private_key.split("\n")[1]!);
    expect(node.tokenRequests.filter((r) => r.email === stranger.client_email).every((r) => !r.issued)).toBe(true);
  });
});
