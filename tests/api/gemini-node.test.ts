// A `gemini` node behind the gateway, called with the official OpenAI client: its listed models
// are imported unpriced (refused until priced), then chat (plain, streamed, tools and their
// results with thought signatures, parallel calls, images, json_schema, stops, max_tokens,
// system, reasoning), the responses API and embeddings (floats and base64) are served in
// Gemini's wire format; what the node received is checked to the field, the usage events bill
// exactly (embeddings from the gateway's own count, marked estimated), and an overloaded node
// fails over or answers 503. The models and nodes here exist only for this file.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import { db } from "../../server/infra/db/client";
import { formatMoney } from "../../server/kernel/money";
import { encoder } from "../../server/inference/chat/count-prompt";
import { toolCallId } from "../../server/providers/gemini/tool-call-ids";
import { setModelPrice } from "../../server/routing/catalog/set-price";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import {
  SIGNATURE,
  THINKING_USAGE,
  THOUGHT,
  TIME_CALL,
  USAGE,
  WEATHER_CALL,
  fakeVector,
  startGeminiUpstream,
  type GeminiFake,
  type GeminiModels,
} from "../fakes/gemini-upstream";
import { baseUrl, newWorkspace, until } from "../helpers";
import { costOf, PNG, refreshRouting, refusedUntilPriced } from "../helpers-nodes";

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MODELS: GeminiModels = { chat: "gemini-2.5-wiretest-flash", thinking: "gemini-3-wiretest-pro", embedding: "gemini-wiretest-embedding" };
const IDS = [MODELS.chat, MODELS.thinking, MODELS.embedding];
const KEY = "test-gemini-key";
const CHAT_PRICES = { input: "0.3", output: "2.5", cacheRead: "0.075" };
const THINKING_PRICES = { input: "1.25", output: "10", cacheRead: "0.3125", reasoning: "12" };
const EMBEDDING_PRICES = { input: "0.15", output: "0" };
const TOOLS = [{ type: "function" as const, function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }];

let node: GeminiFake;
let spare: GeminiFake | undefined;
const nodeIds: string[] = [];
let openai: OpenAI;

const refresh = refreshRouting;

const ask = (extra: Record<string, unknown> = {}) => openai.chat.completions.create({ model: MODELS.chat, messages: [{ role: "user", content: "hello" }], ...extra } as never) as unknown as Promise<Any>;
const sent = () => node.last!.body as Any;
const user = (text: string) => ({ role: "user", parts: [{ text }] });

const eventOf = (requestId: string) => db.usageEvent.findUniqueOrThrow({ where: { id: requestId } });

beforeAll(async () => {
  node = await startGeminiUpstream(MODELS, KEY);
  // A bare origin: the gateway appends /v1beta. The list comes in two pages, with an image model to skip.
  const added = await addNode({ name: "gemini-wire-main", url: node.url, wire: "gemini", apiKey: KEY, city: "Zurich", country: "CH" });
  nodeIds.push(added.node.id);
  expect(added.importedModels.sort()).toEqual([...IDS].sort());
  expect(node.requests).toEqual([]);
  await refresh();
  ({ openai } = await newWorkspace("10"));
}, 120_000);

afterAll(async () => {
  for (const id of nodeIds) await removeNode(id).catch(() => undefined);
  await db.model.deleteMany({ where: { id: { in: IDS } } });
  await node?.close();
  await spare?.close();
});

describe("a gemini node", () => {
  it("its models are imported unpriced with the list's limits, and refused (400 model_not_priced) until priced", async () => {
    const stored = await db.node.findUniqueOrThrow({ where: { id: nodeIds[0]! } });
    expect(stored.baseUrl).toBe(`${node.url}/v1beta`);
    const rows = await db.model.findMany({ where: { id: { in: IDS } }, orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.id, r.type, r.pricingStatus, r.capReasoning])).toEqual([
      [MODELS.chat, "chat", "unpriced", false],
      [MODELS.thinking, "chat", "unpriced", true],
      [MODELS.embedding, "embedding", "unpriced", false],
    ]);
    expect(rows[0]).toMatchObject({ contextLength: 1048576, maxOutputTokens: 65536 });
    await refusedUntilPriced(ask, async () => {
      await setModelPrice({ model: MODELS.chat, ...CHAT_PRICES });
      await setModelPrice({ model: MODELS.thinking, ...THINKING_PRICES });
      await setModelPrice({ model: MODELS.embedding, ...EMBEDDING_PRICES });
    }, () => node.calls);
  });

  it("a plain chat: generateContent with the key in x-goog-api-key; the answer and its usage billed exactly", async () => {
    const { data: c, response } = await openai.chat.completions.create({ model: MODELS.chat, messages: [{ role: "user", content: "hello" }] }).withResponse();
    expect(node.last!.path).toBe(`/v1beta/models/${MODELS.chat}:generateContent`);
    expect(node.last!.headers).toMatchObject({ "x-goog-api-key": KEY, "content-type": "application/json" });
    expect(node.last!.headers.authorization).toBeUndefined();
    expect(sent()).toEqual({ contents: [user("hello")] });
    expect(c).toMatchObject({
      object: "chat.completion",
      model: MODELS.chat,
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hello from Gemini." } }],
      usage: { prompt_tokens: 41, completion_tokens: 9, total_tokens: 50, prompt_tokens_details: { cached_tokens: 12 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ modelId: MODELS.chat, inputTokens: 41, cachedTokens: 12, outputTokens: 9, reasoningTokens: 0, usageEstimated: false });
    expect(formatMoney(event.cost)).toBe(costOf(CHAT_PRICES, { input: 41, cached: 12, output: 9, reasoning: 0 }));
  });

  it("system and developer messages, stop, max_tokens, temperature, top_p, seed; MAX_TOKENS is length", async () => {
    const c = await openai.chat.completions.create({
      model: MODELS.chat,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: "No emoji." },
        { role: "user", content: "greet me" },
      ],
      stop: [" Gemini."],
      max_tokens: 40,
      temperature: 0.5,
      top_p: 0.8,
      seed: 3,
      user: "end-user-7",
    });
    expect(sent()).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }, { text: "No emoji." }] },
      contents: [user("greet me")],
      generationConfig: { maxOutputTokens: 40, stopSequences: [" Gemini."], temperature: 0.5, topP: 0.8, seed: 3 },
    });
    expect(c.choices[0]!).toMatchObject({ finish_reason: "stop", message: { content: "Hello from" } });
    const cut = await openai.chat.completions.create({ model: MODELS.chat, messages: [{ role: "user", content: "go on" }], max_completion_tokens: 1 });
    expect(sent().generationConfig).toEqual({ maxOutputTokens: 1 });
    expect(cut.choices[0]!).toMatchObject({ finish_reason: "length", message: { content: "Hello" } });
  });

  it("a streamed chat with include_usage: streamGenerateContent?alt=sse, text deltas, the finish reason, the usage chunk, billed", async () => {
    const { data: stream, response } = await openai.chat.completions
      .create({ model: MODELS.chat, messages: [{ role: "user", content: "hello" }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const deltas: string[] = [];
    let finish: string | null = null;
    let usage: Any | undefined;
    for await (const chunk of stream) {
      expect(chunk.model).toBe(MODELS.chat);
      if (chunk.choices[0]?.delta.content) deltas.push(chunk.choices[0].delta.content);
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(node.last!.path).toBe(`/v1beta/models/${MODELS.chat}:streamGenerateContent?alt=sse`);
    expect(sent()).toEqual({ contents: [user("hello")] });
    expect(deltas).toEqual(["Hello", " from", " Gemini."]);
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 41, completion_tokens: 9, total_tokens: 50, prompt_tokens_details: { cached_tokens: 12 } });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ inputTokens: 41, cachedTokens: 12, outputTokens: 9, usageEstimated: false });
    expect(formatMoney(event.cost)).toBe(costOf(CHAT_PRICES, { input: 41, cached: 12, output: 9, reasoning: 0 }));
  });

  it("tools: a call out (Gemini's id and thought signature in the tool call id), then the result turn sends both back", async () => {
    const messages: Any[] = [{ role: "user", content: "Weather in Paris?" }];
    const first = await openai.chat.completions.create({ model: MODELS.chat, messages: messages as never, tools: TOOLS, tool_choice: "required" });
    expect(sent()).toEqual({
      contents: [user("Weather in Paris?")],
      tools: [{ functionDeclarations: [{ name: "get_weather", description: "Weather of a city", parametersJsonSchema: TOOLS[0]!.function.parameters }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY" } },
    });
    const answer = first.choices[0]!;
    expect(answer.finish_reason).toBe("tool_calls");
    const id = toolCallId("fc-weather-1", 0, SIGNATURE);
    expect(answer.message.tool_calls).toEqual([{ id, type: "function", function: { name: "get_weather", arguments: JSON.stringify(WEATHER_CALL.args) } }]);
    messages.push(answer.message, { role: "tool", tool_call_id: id, content: '{"sky":"sunny","temp":24}' });
    const second = await openai.chat.completions.create({ model: MODELS.chat, messages: messages as never, tools: TOOLS });
    expect(sent().contents).toEqual([
      user("Weather in Paris?"),
      { role: "model", parts: [{ functionCall: { id: "fc-weather-1", ...WEATHER_CALL }, thoughtSignature: SIGNATURE }] },
      { role: "user", parts: [{ functionResponse: { id: "fc-weather-1", name: "get_weather", response: { sky: "sunny", temp: 24 } } }] },
    ]);
    expect(sent().toolConfig).toBeUndefined();
    expect(second.choices[0]!.message.content).toBe("It is sunny in Paris.");
  });

  it("parallel tool calls, plain and streamed: indexes 0 and 1, call_<n> ids for calls Gemini gave none, the signature on the first", async () => {
    const tools = ["get_weather", "get_time"].map((name) => ({ type: "function" as const, function: { name, parameters: { type: "object" } } }));
    const expected = [
      { id: toolCallId(undefined, 0, SIGNATURE), type: "function", function: { name: "get_weather", arguments: JSON.stringify(WEATHER_CALL.args) } },
      { id: "call_1", type: "function", function: { name: "get_time", arguments: JSON.stringify(TIME_CALL.args) } },
    ];
    const plain = await openai.chat.completions.create({ model: MODELS.chat, messages: [{ role: "user", content: "parallel: Paris weather and Tokyo time" }], tools });
    expect(plain.choices[0]!.message.tool_calls).toEqual(expected);
    const stream = await openai.chat.completions.create({ model: MODELS.chat, messages: [{ role: "user", content: "parallel: Paris weather and Tokyo time" }], tools, stream: true });
    const calls: Any[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      finish = chunk.choices[0]?.finish_reason ?? finish;
      for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
        const at = (calls[d.index] ??= { id: d.id, type: d.type, function: { name: d.function?.name, arguments: "" } });
        at.function.arguments += d.function?.arguments ?? "";
      }
    }
    expect(calls).toEqual(expected);
    expect(finish).toBe("tool_calls");
    // Both results go back in one user turn, named after their calls.
    await openai.chat.completions.create({
      model: MODELS.chat,
      tools,
      messages: [{ role: "user", content: "parallel" }, plain.choices[0]!.message, ...expected.map((c, i) => ({ role: "tool" as const, tool_call_id: c.id, content: `result ${i}` }))],
    });
    expect(sent().contents.slice(1)).toEqual([
      { role: "model", parts: [{ functionCall: WEATHER_CALL, thoughtSignature: SIGNATURE }, { functionCall: TIME_CALL }] },
      { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { result: "result 0" } } }, { functionResponse: { name: "get_time", response: { result: "result 1" } } }] },
    ]);
  });

  it("an image input: a data: URL as inlineData, an https URL as fileData", async () => {
    await openai.chat.completions.create({
      model: MODELS.chat,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Describe" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
          ],
        },
      ],
    });
    expect(sent().contents).toEqual([
      { role: "user", parts: [{ text: "Describe" }, { inlineData: { mimeType: "image/png", data: PNG } }, { fileData: { fileUri: "https://example.com/a.jpg", mimeType: "image/jpeg" } }] },
    ]);
  });

  it("json_schema as responseMimeType and responseJsonSchema", async () => {
    const schema = { type: "object", properties: { city: { type: "string" }, temp: { type: "number" } }, required: ["city", "temp"], additionalProperties: false };
    const c = await openai.chat.completions.create({ model: MODELS.chat, messages: [{ role: "user", content: "Paris weather as JSON" }], response_format: { type: "json_schema", json_schema: { name: "weather", schema, strict: true } } });
    expect(sent().generationConfig).toEqual({ responseMimeType: "application/json", responseJsonSchema: schema });
    expect(JSON.parse(c.choices[0]!.message.content!)).toEqual({ city: "Paris", temp: 21 });
  });

  it("reasoning on a Gemini 3 model: a thinking level, thoughts as reasoning_content, thoughts tokens billed at the reasoning price", async () => {
    const { data, response } = await openai.chat.completions
      .create({ model: MODELS.thinking, messages: [{ role: "user", content: "hello" }], reasoning_effort: "high" })
      .withResponse();
    const c = data as Any;
    expect(node.last!.path).toBe(`/v1beta/models/${MODELS.thinking}:generateContent`);
    expect(sent().generationConfig).toEqual({ thinkingConfig: { thinkingLevel: "high", includeThoughts: true } });
    expect(c.choices[0].message).toMatchObject({ content: "Hello from Gemini.", reasoning_content: THOUGHT.join("") });
    const tokens = { input: THINKING_USAGE.promptTokenCount, cached: THINKING_USAGE.cachedContentTokenCount, output: THINKING_USAGE.candidatesTokenCount + THINKING_USAGE.thoughtsTokenCount, reasoning: THINKING_USAGE.thoughtsTokenCount };
    expect(c.usage).toMatchObject({ prompt_tokens: tokens.input, completion_tokens: tokens.output, completion_tokens_details: { reasoning_tokens: tokens.reasoning }, prompt_tokens_details: { cached_tokens: tokens.cached } });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ inputTokens: tokens.input, cachedTokens: tokens.cached, outputTokens: tokens.output, reasoningTokens: tokens.reasoning, usageEstimated: false });
    expect(formatMoney(event.cost)).toBe(costOf(THINKING_PRICES, tokens));

    const stream = await openai.chat.completions.create({ model: MODELS.thinking, messages: [{ role: "user", content: "hello" }], reasoning_effort: "low", stream: true });
    let reasoning = "";
    for await (const chunk of stream) reasoning += (chunk.choices[0]?.delta as Any | undefined)?.reasoning_content ?? "";
    expect(sent().generationConfig).toEqual({ thinkingConfig: { thinkingLevel: "low", includeThoughts: true } });
    expect(reasoning).toBe(THOUGHT.join(""));
  });

  it("the responses API on the node, plain and streamed", async () => {
    const r = await openai.responses.create({ model: MODELS.chat, input: "hello", instructions: "Be kind", max_output_tokens: 300 });
    expect(sent()).toEqual({ systemInstruction: { parts: [{ text: "Be kind" }] }, contents: [user("hello")], generationConfig: { maxOutputTokens: 300 } });
    expect(r.status).toBe("completed");
    expect(r.output_text).toBe("Hello from Gemini.");
    expect(r.usage).toMatchObject({ input_tokens: 41, output_tokens: 9, total_tokens: 50, input_tokens_details: { cached_tokens: 12 } });

    const stream = await openai.responses.create({ model: MODELS.chat, input: "hello", stream: true });
    let text = "";
    let completed: Any | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    expect(node.last!.path).toBe(`/v1beta/models/${MODELS.chat}:streamGenerateContent?alt=sse`);
    expect(text).toBe("Hello from Gemini.");
    expect(completed!.status).toBe("completed");
    expect(completed!.usage).toMatchObject({ input_tokens: 41, output_tokens: 9 });
  });

  it("embeddings (floats with dimensions, and base64) through batchEmbedContents, billed from the gateway's own count, marked estimated", async () => {
    const inputs = ["The quick brown fox", "jumps over the lazy dog"];
    const enc = await encoder();
    const counted = inputs.reduce((n, t) => n + enc.encode(t).length, 0);
    const { data: floats, response } = await openai.embeddings.create({ model: MODELS.embedding, input: inputs, dimensions: 4, encoding_format: "float" }).withResponse();
    expect(node.last!.path).toBe(`/v1beta/models/${MODELS.embedding}:batchEmbedContents`);
    expect(sent()).toEqual({ requests: inputs.map((text) => ({ model: `models/${MODELS.embedding}`, content: { parts: [{ text }] }, outputDimensionality: 4 })) });
    expect(floats.model).toBe(MODELS.embedding);
    expect(floats.data.map((d) => [d.index, d.embedding])).toEqual(inputs.map((t, i) => [i, fakeVector(t, 4)]));
    expect(floats.usage).toEqual({ prompt_tokens: counted, total_tokens: counted });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ modelId: MODELS.embedding, inputTokens: counted, outputTokens: 0, usageEstimated: true });
    expect(counted).toBeGreaterThan(0);
    expect(formatMoney(event.cost)).toBe(costOf(EMBEDDING_PRICES, { input: counted, cached: 0, output: 0, reasoning: 0 }));

    // The SDK decodes base64 itself when it asked for it; the wire answer is checked raw.
    const raw = await fetch(`${openai.baseURL}/embeddings`, {
      method: "POST",
      headers: { authorization: `Bearer ${openai.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODELS.embedding, input: "gamma", encoding_format: "base64" }),
    });
    const body = (await raw.json()) as Any;
    const bytes = Buffer.from(body.data[0].embedding as string, "base64");
    expect(Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4))).toEqual(fakeVector("gamma"));
    const decoded = await openai.embeddings.create({ model: MODELS.embedding, input: "gamma" });
    expect(decoded.data[0]!.embedding).toEqual(fakeVector("gamma"));
  });

  it("Anthropic's Messages API on the node: translated to Gemini and back, plain, streamed and with a tool round trip (its signature kept)", async () => {
    const { secret, workspace } = await newWorkspace("1");
    const anthropic = new Anthropic({ apiKey: secret, baseURL: baseUrl(), maxRetries: 0 });
    const message = await anthropic.messages.create({ model: MODELS.chat, max_tokens: 256, system: "Be brief.", messages: [{ role: "user", content: "hello" }] });
    expect(sent()).toEqual({ systemInstruction: { parts: [{ text: "Be brief." }] }, contents: [user("hello")], generationConfig: { maxOutputTokens: 256 } });
    expect(message).toMatchObject({
      type: "message",
      model: MODELS.chat,
      content: [{ type: "text", text: "Hello from Gemini." }],
      stop_reason: "end_turn",
      // Gemini's 41 prompt tokens, 12 of them cached: Anthropic's input_tokens leaves the cached ones out.
      usage: { input_tokens: 29, cache_read_input_tokens: 12, cache_creation_input_tokens: 0, output_tokens: 9 },
    });
    const streamed = await anthropic.messages.stream({ model: MODELS.chat, max_tokens: 256, messages: [{ role: "user", content: "hello" }] }).finalMessage();
    expect(node.last!.path).toBe(`/v1beta/models/${MODELS.chat}:streamGenerateContent?alt=sse`);
    expect(streamed.content).toMatchObject([{ type: "text", text: "Hello from Gemini." }]);
    expect(streamed.usage).toMatchObject({ input_tokens: 29, cache_read_input_tokens: 12, output_tokens: 9 });

    const tools = [{ name: "get_weather", description: "Weather of a city", input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] } }];
    const call = await anthropic.messages.create({ model: MODELS.chat, max_tokens: 256, tools, tool_choice: { type: "any" }, messages: [{ role: "user", content: "Weather in Paris?" }] });
    expect(call.stop_reason).toBe("tool_use");
    const use = call.content.find((b) => b.type === "tool_use")!;
    expect(use).toMatchObject({ type: "tool_use", id: toolCallId("fc-weather-1", 0, SIGNATURE), name: "get_weather", input: WEATHER_CALL.args });
    await anthropic.messages.create({
      model: MODELS.chat,
      max_tokens: 256,
      tools,
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: call.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.type === "tool_use" ? use.id : "", content: '{"sky":"sunny","temp":24}' }] },
      ],
    });
    expect(sent().contents).toEqual([
      user("Weather in Paris?"),
      { role: "model", parts: [{ functionCall: { id: "fc-weather-1", ...WEATHER_CALL }, thoughtSignature: SIGNATURE }] },
      { role: "user", parts: [{ functionResponse: { id: "fc-weather-1", name: "get_weather", response: { sky: "sunny", temp: 24 } } }] },
    ]);
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events.map((e) => e.endpoint)).toEqual(["/v1/messages", "/v1/messages", "/v1/messages", "/v1/messages"]);
  });

  it("the node's 400 reaches the client with Gemini's message; token-id embeddings are refused as a 400", async () => {
    node.mode = "invalid";
    const refused = await ask().catch((e: Any) => e);
    expect(refused).toMatchObject({ status: 400, error: { message: "Request contains an invalid argument." } });
    node.mode = "ok";
    const before = node.calls;
    const tokens = await openai.embeddings.create({ model: MODELS.embedding, input: [1, 2, 3] }).catch((e: Any) => e);
    expect(tokens).toMatchObject({ status: 400, code: "unsupported_input", error: { message: expect.stringContaining("token ids") } });
    expect(node.calls).toBe(before);
  });

  it("a blocked prompt answers 400 content_filter", async () => {
    node.mode = "blocked";
    const blocked = await ask().catch((e: Any) => e);
    node.mode = "ok";
    expect(blocked).toMatchObject({ status: 400, code: "content_filter", error: { message: "The model's provider blocked the prompt (SAFETY)." } });
  });

  it("a 503 (UNAVAILABLE) fails over to another node; with every node overloaded the call answers 503 upstream_overloaded", async () => {
    spare = await startGeminiUpstream(MODELS, KEY);
    spare.mode = "unavailable";
    // The spare weighs more, so it is tried first once the gateway knows it.
    nodeIds.push((await addNode({ name: "gemini-wire-spare", url: spare.url, wire: "gemini", apiKey: KEY, city: "Zurich", country: "CH", weight: 100 })).node.id);
    await refresh();
    const before = node.calls;
    const tried = await until(
      async () => (await ask(), spare!.calls),
      (n) => n > 0,
      10_000,
    );
    expect(tried.value).toBeGreaterThan(0);
    expect(node.calls).toBeGreaterThan(before);
    node.mode = "unavailable";
    const failed = await ask().catch((e: Any) => e);
    expect(failed).toMatchObject({ status: 503, code: "upstream_overloaded" });
    node.mode = "ok";
  });

  it("a 429 (RESOURCE_EXHAUSTED) on every node answers 429 upstream_rate_limited", async () => {
    node.mode = "exhausted";
    spare!.mode = "exhausted";
    const limited = await ask().catch((e: Any) => e);
    node.mode = "ok";
    expect(limited).toMatchObject({ status: 429, code: "upstream_rate_limited" });
  });
});
