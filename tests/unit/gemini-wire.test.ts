// The gemini wire format's translation, without the gateway: an OpenAI request as Gemini's
// generateContent body, Gemini's answers and recorded streams as OpenAI's completion and chunks,
// embeddings (floats and base64) and the model list against the stand-in Gemini node, and a
// round trip that fails on any field lost or changed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { geminiAdapter } from "../../server/providers/gemini/chat";
import { listGeminiModels } from "../../server/providers/gemini/models";
import { toGeminiRequest } from "../../server/providers/gemini/request";
import { toCompletion } from "../../server/providers/gemini/response";
import { geminiStreamTranslator } from "../../server/providers/gemini/stream";
import { parseToolCallId, toolCallId } from "../../server/providers/gemini/tool-call-ids";
import { finishReasonOf } from "../../server/providers/gemini/finish-reason";
import type { GeminiRequest, GeminiResponse } from "../../server/providers/gemini/types";
import type { UpstreamTarget } from "../../server/providers/http";
import { UpstreamFailure } from "../../server/providers/upstream-failure";
import { ZModelCard, ZPricing } from "../../server/routing/catalog/model-card";
import {
  JSON_TEXT,
  SIGNATURE,
  TEXT,
  THINKING_USAGE,
  THOUGHT,
  TIME_CALL,
  USAGE,
  WEATHER_CALL,
  fakeVector,
  recordedAnswer,
  recordedEvents,
  startGeminiUpstream,
  type GeminiFake,
} from "../fakes/gemini-upstream";

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MODELS = { chat: "gemini-2.5-unit-flash", thinking: "gemini-3-unit-pro", embedding: "gemini-unit-embedding" };
const OPTIONS = { maxOutputTokens: 65536 };
const TOOLS = [{ type: "function", function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false } } }];

/** Feeds SSE data payloads to a translator as the relay does, `end()` at the body's end. */
function translate(events: unknown[], model = "m"): { chunks: Any[]; done: boolean; doneBeforeEnd: boolean } {
  const t = geminiStreamTranslator(model);
  const chunks: Any[] = [];
  let doneBeforeEnd = false;
  for (const e of events) {
    chunks.push(...t.push(typeof e === "string" ? e : JSON.stringify(e)).map((p) => JSON.parse(p) as Any));
    doneBeforeEnd ||= t.done;
  }
  chunks.push(...t.end().map((p) => JSON.parse(p) as Any));
  return { chunks, done: t.done, doneBeforeEnd };
}

/** What an OpenAI client assembles from chunks: the message and finish reason of choice 0, and the usage. */
function assemble(chunks: Any[]): { message: Any; finish: string | null; usage: Any } {
  const message: Any = { role: "", content: "", reasoning_content: "", tool_calls: [] };
  let finish: string | null = null;
  let usage: Any = {};
  for (const c of chunks) {
    if (c.usage) usage = c.usage;
    for (const choice of c.choices) {
      const d = choice.delta;
      if (d.role) message.role = d.role;
      if (d.content) message.content += d.content;
      if (d.reasoning_content) message.reasoning_content += d.reasoning_content;
      for (const call of d.tool_calls ?? []) {
        const slot = (message.tool_calls[call.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
        if (call.id) slot.id = call.id;
        if (call.function?.name) slot.function.name += call.function.name;
        if (call.function?.arguments) slot.function.arguments += call.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  return { message, finish, usage };
}

const openaiUsage = (u: typeof USAGE & { thoughtsTokenCount?: number }) => ({
  prompt_tokens: u.promptTokenCount,
  completion_tokens: u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0),
  total_tokens: u.promptTokenCount + u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0),
  prompt_tokens_details: { cached_tokens: u.cachedContentTokenCount },
  completion_tokens_details: { reasoning_tokens: u.thoughtsTokenCount ?? 0 },
});

const signedId = (id: string) => toolCallId(id, 0, SIGNATURE);

describe("an OpenAI chat request as Gemini's generateContent body", () => {
  it("maps system and developer messages, roles (merged), text, images, tool calls and results, and every generation field", () => {
    const body = {
      model: MODELS.chat,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: [{ type: "text", text: "Answer in English." }] },
        { role: "user", content: [{ type: "text", text: "What is in these?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }, { type: "image_url", image_url: { url: "https://example.com/cat.webp?size=2" } }] },
        { role: "user", content: "And the weather?" },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            { id: signedId("fc-1"), type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_1", type: "function", function: { name: "get_time", arguments: '{"zone":"UTC"}' } },
          ],
        },
        { role: "tool", tool_call_id: signedId("fc-1"), content: '{"temp":21,"sky":"clear"}' },
        { role: "tool", tool_call_id: "call_1", content: [{ type: "text", text: "12:00" }] },
        { role: "user", content: "Thanks" },
      ],
      max_tokens: 100,
      max_completion_tokens: 200,
      stop: ["END"],
      temperature: 0.3,
      top_p: 0.9,
      n: 2,
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      response_format: { type: "json_schema", json_schema: { name: "weather", schema: { type: "object", properties: { temp: { type: "number" } } }, strict: true } },
      tools: TOOLS,
      tool_choice: "auto",
      reasoning_effort: "low",
      parallel_tool_calls: false,
      logit_bias: { "1": 2 },
      user: "u-1",
      stream_options: { include_usage: true },
    };
    expect(toGeminiRequest(body)).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }, { text: "Answer in English." }] },
      contents: [
        {
          role: "user",
          parts: [
            { text: "What is in these?" },
            { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
            { fileData: { fileUri: "https://example.com/cat.webp?size=2", mimeType: "image/webp" } },
            { text: "And the weather?" },
          ],
        },
        {
          role: "model",
          parts: [
            { text: "Checking." },
            { functionCall: { id: "fc-1", name: "get_weather", args: { city: "Paris" } }, thoughtSignature: SIGNATURE },
            { functionCall: { name: "get_time", args: { zone: "UTC" } } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { id: "fc-1", name: "get_weather", response: { temp: 21, sky: "clear" } } },
            { functionResponse: { name: "get_time", response: { result: "12:00" } } },
            { text: "Thanks" },
          ],
        },
      ],
      tools: [{ functionDeclarations: [{ name: "get_weather", description: "Weather of a city", parametersJsonSchema: TOOLS[0]!.function.parameters }] }],
      toolConfig: { functionCallingConfig: { mode: "AUTO" } },
      generationConfig: {
        maxOutputTokens: 200,
        stopSequences: ["END"],
        temperature: 0.3,
        topP: 0.9,
        candidateCount: 2,
        seed: 7,
        presencePenalty: 0.5,
        frequencyPenalty: -0.5,
        responseMimeType: "application/json",
        responseJsonSchema: { type: "object", properties: { temp: { type: "number" } } },
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
      },
    });
  });

  it("tool_choice none / required / a named function become NONE / ANY / ANY with allowedFunctionNames", () => {
    const choice = (tool_choice: unknown) => toGeminiRequest({ model: "m", messages: [{ role: "user", content: "x" }], tools: TOOLS, tool_choice }).toolConfig;
    expect(choice("none")).toEqual({ functionCallingConfig: { mode: "NONE" } });
    expect(choice("required")).toEqual({ functionCallingConfig: { mode: "ANY" } });
    expect(choice({ type: "function", function: { name: "get_weather" } })).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } });
    expect(choice(undefined)).toBeUndefined();
  });

  it("json_object is JSON output without a schema; a lone max_tokens and a string stop are taken", () => {
    const req = toGeminiRequest({ model: "m", messages: [{ role: "user", content: "x" }], response_format: { type: "json_object" }, max_tokens: 5, stop: "\n" });
    expect(req.generationConfig).toEqual({ responseMimeType: "application/json", maxOutputTokens: 5, stopSequences: ["\n"] });
    expect(toGeminiRequest({ model: "m", messages: [{ role: "user", content: "x" }] })).toEqual({ contents: [{ role: "user", parts: [{ text: "x" }] }] });
  });

  it("reasoning_effort is a thinking level on Gemini 3, a budget before it; `none` turns 2.5 thinking off", () => {
    const thinking = (model: string, reasoning_effort: string) => toGeminiRequest({ model, messages: [{ role: "user", content: "x" }], reasoning_effort }).generationConfig?.thinkingConfig;
    expect(thinking("gemini-3-pro-preview", "high")).toEqual({ thinkingLevel: "high", includeThoughts: true });
    expect(thinking("gemini-3-flash-preview", "minimal")).toEqual({ thinkingLevel: "minimal", includeThoughts: true });
    expect(thinking("gemini-3-flash-preview", "none")).toEqual({ thinkingLevel: "minimal", includeThoughts: true });
    expect(thinking("gemini-2.5-flash", "medium")).toEqual({ thinkingBudget: 8192, includeThoughts: true });
    expect(thinking("gemini-2.5-flash", "high")).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    expect(thinking("gemini-2.5-flash", "none")).toEqual({ thinkingBudget: 0 });
  });

  it("Gemini 3: a replayed call that lost its signature gets Google's sentinel on the turn's first call; a signature in extra_content is used", () => {
    const calls = (model: string, toolCalls: unknown[]) =>
      toGeminiRequest({ model, messages: [{ role: "user", content: "x" }, { role: "assistant", content: null, tool_calls: toolCalls }] }).contents[1]!.parts;
    const plain = [
      { id: "call_abc", type: "function", function: { name: "a", arguments: "{}" } },
      { id: "call_def", type: "function", function: { name: "b", arguments: "not json" } },
    ];
    expect(calls("gemini-3-pro-preview", plain)).toEqual([
      { functionCall: { id: "call_abc", name: "a", args: {} }, thoughtSignature: "skip_thought_signature_validator" },
      { functionCall: { id: "call_def", name: "b", args: {} } },
    ]);
    expect(calls("gemini-2.5-flash", plain)).toEqual([{ functionCall: { id: "call_abc", name: "a", args: {} } }, { functionCall: { id: "call_def", name: "b", args: {} } }]);
    const google = [{ id: "call_0", type: "function", function: { name: "a", arguments: '{"x":[1,2]}' }, extra_content: { google: { thought_signature: "c2ln" } } }];
    expect(calls("gemini-3-pro-preview", google)).toEqual([{ functionCall: { name: "a", args: { x: [1, 2] } }, thoughtSignature: "c2ln" }]);
  });

  it("a tool call id carries Gemini's id and the signature, url-safe, and gives both back unchanged", () => {
    const id = toolCallId("fc-9", 0, SIGNATURE);
    expect(id).toMatch(/^fc-9__sig__[A-Za-z0-9_-]+$/);
    expect(parseToolCallId(id)).toEqual({ geminiId: "fc-9", signature: SIGNATURE });
    expect(parseToolCallId(toolCallId(undefined, 3, undefined))).toEqual({ geminiId: undefined, signature: undefined });
    expect(toolCallId(undefined, 3, undefined)).toBe("call_3");
  });
});

describe("Gemini's answer as an OpenAI chat.completion", () => {
  const request = (extra: object = {}): GeminiRequest => toGeminiRequest({ model: MODELS.chat, messages: [{ role: "user", content: "hi" }], ...extra });

  it("text, thoughts as reasoning_content, usage with cached and reasoning tokens", () => {
    const completion = toCompletion(recordedAnswer(request({ reasoning_effort: "low" }), MODELS.chat), MODELS.chat);
    expect(completion).toMatchObject({
      id: "chatcmpl-resp-gemini-fake",
      object: "chat.completion",
      model: MODELS.chat,
      choices: [{ index: 0, message: { role: "assistant", content: TEXT.join(""), reasoning_content: THOUGHT.join("") }, finish_reason: "stop", logprobs: null }],
      usage: openaiUsage(THINKING_USAGE),
    });
    expect(completion.choices).toHaveLength(1);
  });

  it("a function call: tool_calls with its id and signature, arguments as JSON text, content null, finish tool_calls", () => {
    const completion = toCompletion(recordedAnswer(request({ tools: TOOLS }), MODELS.chat), MODELS.chat) as Any;
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: { role: "assistant", content: null, tool_calls: [{ id: toolCallId("fc-weather-1", 0, SIGNATURE), type: "function", function: { name: "get_weather", arguments: JSON.stringify(WEATHER_CALL.args) } }] },
      finish_reason: "tool_calls",
      logprobs: null,
    });
    expect(completion.usage).toEqual(openaiUsage(USAGE));
  });

  it("parallel calls without ids are call_0 and call_1, the signature on the first only", () => {
    const completion = toCompletion(recordedAnswer(request({ tools: TOOLS, messages: [{ role: "user", content: "parallel please" }] }), MODELS.chat), MODELS.chat) as Any;
    expect(completion.choices[0].message.tool_calls).toEqual([
      { id: toolCallId(undefined, 0, SIGNATURE), type: "function", function: { name: "get_weather", arguments: JSON.stringify(WEATHER_CALL.args) } },
      { id: "call_1", type: "function", function: { name: "get_time", arguments: JSON.stringify(TIME_CALL.args) } },
    ]);
  });

  it("finish reasons: STOP, MAX_TOKENS, the filters, and the rest", () => {
    expect(finishReasonOf("STOP", false)).toBe("stop");
    expect(finishReasonOf("STOP", true)).toBe("tool_calls");
    expect(finishReasonOf("MAX_TOKENS", true)).toBe("length");
    for (const r of ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"] as const) expect(finishReasonOf(r, false), r).toBe("content_filter");
    for (const r of ["LANGUAGE", "OTHER", "MALFORMED_FUNCTION_CALL", "FINISH_REASON_UNSPECIFIED"] as const) expect(finishReasonOf(r, false), r).toBe("stop");
    expect(finishReasonOf(undefined, false)).toBe("stop");
    const length = toCompletion(recordedAnswer(request({ max_tokens: 1 }), MODELS.chat), MODELS.chat) as Any;
    expect(length.choices[0]).toMatchObject({ message: { content: "Hello" }, finish_reason: "length" });
    const filtered = toCompletion({ candidates: [{ index: 0, finishReason: "SAFETY" as never }], usageMetadata: USAGE }, "m") as Any;
    expect(filtered.choices[0]).toMatchObject({ message: { content: null }, finish_reason: "content_filter" });
  });

  it("several candidates are several choices", () => {
    const two = toCompletion({ candidates: [{ index: 0, content: { parts: [{ text: "a" }] }, finishReason: "STOP" as never }, { index: 1, content: { parts: [{ text: "b" }] }, finishReason: "MAX_TOKENS" as never }] }, "m") as Any;
    expect(two.choices.map((c: Any) => [c.index, c.message.content, c.finish_reason])).toEqual([[0, "a", "stop"], [1, "b", "length"]]);
  });

  it("a blocked prompt is a 400 content_filter error carrying the reason", () => {
    const blocked: GeminiResponse = { promptFeedback: { blockReason: "PROHIBITED_CONTENT" as never }, usageMetadata: { promptTokenCount: 5 } } as GeminiResponse;
    let failure: unknown;
    try {
      toCompletion(blocked, "m");
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(UpstreamFailure);
    expect(failure).toMatchObject({ kind: "status", status: 400, body: { error: { code: "content_filter", message: "The model's provider blocked the prompt (PROHIBITED_CONTENT)." } } });
  });
});

describe("Gemini's stream as OpenAI chunks", () => {
  const events = (extra: object = {}) => recordedEvents(toGeminiRequest({ model: MODELS.chat, messages: [{ role: "user", content: "hi" }], ...extra }), MODELS.chat);

  it("text split over events: a role chunk, one chunk per event, the finish chunk, then usage at the body's end", () => {
    const { chunks, done, doneBeforeEnd } = translate(events(), MODELS.chat);
    expect(doneBeforeEnd).toBe(false);
    expect(done).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta ?? null)).toEqual([{ role: "assistant", content: "Hello" }, { content: " from" }, { content: " Gemini." }, {}, null]);
    expect(chunks.map((c) => c.choices[0]?.finish_reason ?? null)).toEqual([null, null, null, "stop", null]);
    for (const c of chunks) expect(c).toMatchObject({ id: "chatcmpl-resp-gemini-fake", object: "chat.completion.chunk", model: MODELS.chat, created: chunks[0]!.created });
    expect(chunks.at(-1)).toEqual({ id: "chatcmpl-resp-gemini-fake", object: "chat.completion.chunk", created: chunks[0]!.created, model: MODELS.chat, choices: [], usage: openaiUsage(USAGE) });
  });

  it("thoughts stream as reasoning_content before the text; reasoning tokens in the usage", () => {
    const { chunks } = translate(events({ reasoning_effort: "high" }));
    expect(chunks.slice(0, 2).map((c) => c.choices[0].delta)).toEqual([{ role: "assistant", content: "", reasoning_content: THOUGHT[0] }, { reasoning_content: THOUGHT[1] }]);
    const { message, finish, usage } = assemble(chunks);
    expect([message.reasoning_content, message.content, finish]).toEqual([THOUGHT.join(""), TEXT.join(""), "stop"]);
    expect(usage).toEqual(openaiUsage(THINKING_USAGE));
  });

  it("a function call and two parallel calls: indexed tool_calls deltas with whole arguments, finish tool_calls", () => {
    const single = assemble(translate(events({ tools: TOOLS })).chunks);
    expect(single.finish).toBe("tool_calls");
    expect(single.message.tool_calls).toEqual([{ id: toolCallId("fc-weather-1", 0, SIGNATURE), type: "function", function: { name: "get_weather", arguments: JSON.stringify(WEATHER_CALL.args) } }]);
    const { chunks } = translate(events({ tools: TOOLS, messages: [{ role: "user", content: "parallel" }] }));
    expect(chunks[0]!.choices[0].delta.tool_calls.map((c: Any) => [c.index, c.id, c.function.name])).toEqual([[0, toolCallId(undefined, 0, SIGNATURE), "get_weather"], [1, "call_1", "get_time"]]);
    expect(assemble(chunks).finish).toBe("tool_calls");
  });

  it("calls split over events keep counting their index (and call_<n> ids) across events", () => {
    const call = (name: string, last: boolean) => ({ candidates: [{ index: 0, content: { role: "model", parts: [{ functionCall: { name, args: {} } }] }, ...(last && { finishReason: "STOP" }) }] });
    const { message, finish } = assemble(translate([call("a", false), call("b", true)]).chunks);
    expect(message.tool_calls.map((c: Any) => [c.id, c.function.name])).toEqual([["call_0", "a"], ["call_1", "b"]]);
    expect(finish).toBe("tool_calls");
  });

  it("a body that ends before a finish reason is not complete (the relay fails it); an error event or a blocked prompt fails the stream", () => {
    const cut = translate(events().slice(0, 2));
    expect(cut.done).toBe(false);
    expect(cut.chunks.some((c) => c.usage)).toBe(false);
    const errored = translate([events()[0], { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } }]);
    expect(errored.chunks.at(-1)).toEqual({ error: { message: "The model is overloaded." } });
    expect(errored.done).toBe(false);
    const blocked = translate([{ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 4 } }]);
    expect(blocked.chunks).toEqual([{ error: { message: "The model's provider blocked the prompt (SAFETY)." } }]);
    expect(translate(["not json"]).chunks).toEqual([{ error: { message: "The node sent an unreadable stream event." } }]);
  });

  it("a JSON answer streams as content; MAX_TOKENS is length", () => {
    expect(assemble(translate(events({ response_format: { type: "json_object" } })).chunks).message.content).toBe(JSON_TEXT.join(""));
    expect(assemble(translate(events({ max_tokens: 1 })).chunks).finish).toBe("length");
  });
});

describe("embeddings and the model list against the stand-in Gemini node", () => {
  let fake: GeminiFake;
  let target: UpstreamTarget;
  beforeAll(async () => {
    fake = await startGeminiUpstream(MODELS);
    target = { baseUrl: `${fake.url}/v1beta`, apiKey: fake.key, wire: "gemini" };
  });
  afterAll(() => fake?.close());

  it("batchEmbedContents with dimensions; floats in OpenAI's list, no usage", async () => {
    const out = await geminiAdapter.embed!(target, { model: MODELS.embedding, input: ["alpha", "beta"], dimensions: 4 }, OPTIONS);
    expect(fake.last).toMatchObject({ method: "POST", path: `/v1beta/models/${MODELS.embedding}:batchEmbedContents`, headers: { "x-goog-api-key": fake.key } });
    expect(fake.last!.body).toEqual({
      requests: ["alpha", "beta"].map((text) => ({ model: `models/${MODELS.embedding}`, content: { parts: [{ text }] }, outputDimensionality: 4 })),
    });
    expect(out).toEqual({
      object: "list",
      model: MODELS.embedding,
      data: [
        { object: "embedding", index: 0, embedding: fakeVector("alpha", 4) },
        { object: "embedding", index: 1, embedding: fakeVector("beta", 4) },
      ],
    });
  });

  it("base64 is little-endian float32, as OpenAI encodes it; 250 inputs go in batches of 100, in order", async () => {
    const out = (await geminiAdapter.embed!(target, { model: MODELS.embedding, input: "gamma", encoding_format: "base64" }, OPTIONS)) as Any;
    const bytes = Buffer.from(out.data[0].embedding, "base64");
    expect(Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4))).toEqual(fakeVector("gamma"));
    const before = fake.calls;
    const inputs = Array.from({ length: 250 }, (_, i) => `text ${i}`);
    const many = (await geminiAdapter.embed!(target, { model: MODELS.embedding, input: inputs }, OPTIONS)) as Any;
    expect(fake.calls - before).toBe(3);
    expect(many.data.map((d: Any) => d.embedding)).toEqual(inputs.map((t) => fakeVector(t)));
    expect(many.data.map((d: Any) => d.index)).toEqual(inputs.map((_, i) => i));
  });

  it("token-id inputs are a 400 with an OpenAI error body, before any call", async () => {
    const before = fake.calls;
    for (const input of [[1, 2, 3], [[1, 2], [3]]]) {
      await expect(geminiAdapter.embed!(target, { model: MODELS.embedding, input }, OPTIONS)).rejects.toMatchObject({
        kind: "status",
        status: 400,
        body: { error: { type: "invalid_request_error", param: "input", code: "unsupported_input", message: expect.stringContaining("token ids") } },
      });
    }
    expect(fake.calls).toBe(before);
  });

  it("the node's errors are UpstreamFailures with Gemini's error body", async () => {
    fake.mode = "unavailable";
    await expect(geminiAdapter.complete(target, { model: MODELS.chat, messages: [{ role: "user", content: "x" }] }, OPTIONS)).rejects.toMatchObject({
      status: 503,
      retryable: true,
      body: { error: { code: 503, status: "UNAVAILABLE" } },
    });
    fake.mode = "invalid";
    await expect(geminiAdapter.embed!(target, { model: MODELS.embedding, input: "x" }, OPTIONS)).rejects.toMatchObject({
      status: 400,
      retryable: false,
      body: { error: { code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT" } },
    });
    fake.mode = "ok";
  });

  it("the model list follows nextPageToken and gives unpriced cards: chat, embedding, others skipped", async () => {
    const cards = await listGeminiModels(target, 5000);
    expect(cards.map((c) => [c.id, c.type])).toEqual([[MODELS.chat, "chat"], [MODELS.thinking, "chat"], [MODELS.embedding, "embedding"]]);
    for (const card of cards) expect(ZModelCard.safeParse(card).success, card.id).toBe(true);
    expect(cards[1]).toEqual({
      id: MODELS.thinking,
      display_name: "Gemini Test Pro",
      owned_by: "google",
      provider: "google",
      type: "chat",
      context_length: 1048576,
      max_output_tokens: 65536,
      knowledge_cutoff: "",
      deprecated: false,
      capabilities: { input_modalities: ["text", "image"], output_modalities: ["text"], json_mode: true, reasoning: true, streaming: true, structured_output: true, tools: true },
      pricing: { ...Object.fromEntries(Object.keys(ZPricing.shape).map((field) => [field, "0"])), pricing_status: "unpriced", batch_discount: "0.5" },
    });
    expect(cards[0]!.capabilities).toMatchObject({ reasoning: false });
    expect(cards[2]).toMatchObject({ max_output_tokens: 1, capabilities: { input_modalities: ["text"], output_modalities: ["embedding"], tools: false } });
    await expect(listGeminiModels({ ...target, apiKey: "wrong" }, 5000)).rejects.toMatchObject({ message: "HTTP 400", status: 400 });
    await expect(listGeminiModels({ ...target, baseUrl: "http://127.0.0.1:1/v1beta" }, 5000)).rejects.toMatchObject({ message: "connection failed" });
  });
});

describe("fidelity: Gemini -> OpenAI -> Gemini loses and changes nothing", () => {
  it("calls (ids, names, args, signatures, parallel), text, finish reasons, usage and images survive the round trip", () => {
    const args = { city: "Zürich", days: [1, 2], nested: { deep: { ok: true, n: null } }, quote: 'say "hi"\n' };
    const modelTurn = [
      { text: "Let me check." },
      { functionCall: { id: "fc-a", name: "get_weather", args }, thoughtSignature: SIGNATURE },
      { functionCall: { name: "get_time", args: { zone: "UTC" } } },
      { functionCall: { id: "fc-c", name: "noop", args: {} } },
    ];
    const usage = { promptTokenCount: 1234, cachedContentTokenCount: 1000, candidatesTokenCount: 56, thoughtsTokenCount: 78, totalTokenCount: 1368 };
    const answer = { candidates: [{ index: 0, content: { role: "model", parts: modelTurn }, finishReason: "STOP" }], usageMetadata: usage, responseId: "r1" } as GeminiResponse;
    const completion = toCompletion(answer, MODELS.thinking) as Any;
    expect(completion.choices[0].finish_reason).toBe("tool_calls");
    expect(completion.usage).toEqual({
      prompt_tokens: 1234,
      completion_tokens: 56 + 78,
      total_tokens: 1234 + 56 + 78,
      prompt_tokens_details: { cached_tokens: 1000 },
      completion_tokens_details: { reasoning_tokens: 78 },
    });
    // The same answer streamed (one part per event) assembles to the same message.
    const streamed = translate(modelTurn.map((part, i) => ({ responseId: "r1", candidates: [{ index: 0, content: { role: "model", parts: [part] }, ...(i === modelTurn.length - 1 && { finishReason: "STOP" }) }], usageMetadata: usage })));
    const assembled = assemble(streamed.chunks);
    expect(assembled.message.tool_calls).toEqual(completion.choices[0].message.tool_calls);
    expect(assembled.message.content).toBe(completion.choices[0].message.content);
    expect(assembled.usage).toEqual(completion.usage);
    expect(assembled.finish).toBe("tool_calls");

    const images = [
      { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQSkZJRg==" } },
      { type: "image_url", image_url: { url: "https://example.com/a/photo.PNG" } },
    ];
    // What a client sends next: the assistant message as answered, a result per call, a new user turn.
    const { message } = completion.choices[0];
    const next = toGeminiRequest({
      model: MODELS.thinking,
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather and time?" }, ...images] },
        { role: "assistant", content: message.content, tool_calls: message.tool_calls },
        ...message.tool_calls.map((call: Any, i: number) => ({ role: "tool", tool_call_id: call.id, content: i === 1 ? "12:00" : JSON.stringify({ i }) })),
      ],
    });
    expect(next.contents).toEqual([
      {
        role: "user",
        parts: [{ text: "Weather and time?" }, { inlineData: { mimeType: "image/jpeg", data: "/9j/4AAQSkZJRg==" } }, { fileData: { fileUri: "https://example.com/a/photo.PNG", mimeType: "image/png" } }],
      },
      { role: "model", parts: modelTurn },
      {
        role: "user",
        parts: [
          { functionResponse: { id: "fc-a", name: "get_weather", response: { i: 0 } } },
          { functionResponse: { name: "get_time", response: { result: "12:00" } } },
          { functionResponse: { id: "fc-c", name: "noop", response: { i: 2 } } },
        ],
      },
    ]);
  });
});
