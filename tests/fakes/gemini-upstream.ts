// A stand-in Gemini API node (generativelanguage v1beta) speaking Gemini's format exactly:
// generateContent, streamGenerateContent?alt=sse, batchEmbedContents and the paged model list,
// the key in `x-goog-api-key`, Gemini's error bodies. Its answers are recorded-style event
// sequences (text split over events, thought summaries, a function call with its thought
// signature, two parallel calls, usage with cached and thoughts tokens), exported for the unit
// tests of the translation. It records every request for assertions.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { freePort } from "../../server/infra/net/free-port";
import type { GeminiModel, GeminiRequest, GeminiResponse } from "../../server/providers/gemini/types";

export type GeminiMode = "ok" | "unavailable" | "invalid" | "exhausted" | "blocked";

export type RecordedRequest = { method: string; path: string; headers: IncomingMessage["headers"]; body: unknown };

export type GeminiFake = {
  /** The node's origin (the gateway appends /v1beta). */
  url: string;
  key: string;
  mode: GeminiMode;
  calls: number;
  requests: RecordedRequest[];
  last: RecordedRequest | null;
  close: () => Promise<void>;
};

export type GeminiModels = { chat: string; thinking: string; embedding: string };

export const SIGNATURE = "c2lnbmF0dXJlLW9mLXRoZS1maXJzdC1jYWxsLz8+Pz4=";
export const TEXT = ["Hello", " from", " Gemini."];
export const THOUGHT = ["Weighing the question.", " Answering briefly."];
export const JSON_TEXT = ['{"city":', ' "Paris", "temp"', ": 21}"];
export const TOOL_RESULT_TEXT = ["It is sunny", " in Paris."];
export const WEATHER_CALL = { name: "get_weather", args: { city: "Paris", unit: "celsius" } };
export const TIME_CALL = { name: "get_time", args: { zone: "Asia/Tokyo" } };
export const EMBEDDING_DIMENSIONS = 8;

/** The usage every answer ends with; thoughts only when thoughts were asked for. */
export const USAGE = { promptTokenCount: 41, cachedContentTokenCount: 12, candidatesTokenCount: 9, totalTokenCount: 50 };
export const THINKING_USAGE = { ...USAGE, thoughtsTokenCount: 17, totalTokenCount: 67 };

type Scenario = "text" | "thinking" | "json" | "call" | "parallel" | "tool-result" | "length" | "stop";

/** What the node answers a request with, as the events of its stream (the last with the finish reason and usage). */
export function recordedEvents(request: GeminiRequest, model: string): GeminiResponse[] {
  const scenario = scenarioOf(request);
  const thinking = request.generationConfig?.thinkingConfig?.includeThoughts === true;
  const usage = thinking ? THINKING_USAGE : USAGE;
  const base = { modelVersion: `${model}-001`, responseId: "resp-gemini-fake" };
  const partial = { promptTokenCount: usage.promptTokenCount, cachedContentTokenCount: usage.cachedContentTokenCount, totalTokenCount: usage.promptTokenCount };
  const event = (parts: object[], last = false, finishReason = "STOP"): GeminiResponse =>
    ({ ...base, candidates: [{ index: 0, content: { role: "model", parts }, ...(last && { finishReason }) }], usageMetadata: last ? usage : partial }) as GeminiResponse;
  const thoughts = thinking ? THOUGHT.map((text) => event([{ text, thought: true }])) : [];
  const texts = (chunks: string[], finishReason = "STOP") => chunks.map((text, i) => event([{ text }], i === chunks.length - 1, finishReason));
  switch (scenario) {
    case "call":
      return [...thoughts, event([{ functionCall: { ...WEATHER_CALL, id: "fc-weather-1" }, thoughtSignature: SIGNATURE }], true)];
    case "parallel":
      // Gemini signs only the first of parallel calls; these carry no ids (as Gemini 2.5 sends them).
      return [...thoughts, event([{ functionCall: WEATHER_CALL, thoughtSignature: SIGNATURE }, { functionCall: TIME_CALL }], true)];
    case "tool-result":
      return [...thoughts, ...texts(TOOL_RESULT_TEXT)];
    case "json":
      return [...thoughts, ...texts(JSON_TEXT)];
    case "length":
      return [...thoughts, ...texts(TEXT.slice(0, 1), "MAX_TOKENS")];
    case "stop":
      return [...thoughts, ...texts(TEXT.slice(0, 2))];
    default:
      return [...thoughts, ...texts(TEXT)];
  }
}

function scenarioOf(request: GeminiRequest): Scenario {
  const config = request.generationConfig ?? {};
  const lastParts = request.contents.at(-1)?.parts ?? [];
  const lastText = lastParts.map((p) => p.text ?? "").join(" ");
  if (lastParts.some((p) => p.functionResponse)) return "tool-result";
  if (request.tools?.length && request.toolConfig?.functionCallingConfig.mode !== "NONE") return /parallel/i.test(lastText) ? "parallel" : "call";
  if (config.responseMimeType === "application/json") return "json";
  if ((config.maxOutputTokens ?? Infinity) < 3) return "length";
  if (config.stopSequences?.includes(" Gemini.")) return "stop";
  return "text";
}

/** The non-streamed answer: the events merged as Gemini's generateContent answers (one part per kind of text). */
export function recordedAnswer(request: GeminiRequest, model: string): GeminiResponse {
  const events = recordedEvents(request, model);
  const parts: { text?: string; thought?: boolean }[] = [];
  for (const part of events.flatMap((e) => e.candidates?.[0]?.content?.parts ?? [])) {
    const last = parts.at(-1);
    if (typeof part.text === "string" && last && typeof last.text === "string" && last.thought === part.thought) last.text += part.text;
    else parts.push({ ...part });
  }
  const final = events.at(-1)!;
  return { ...final, candidates: [{ ...final.candidates![0]!, content: { role: "model", parts } }] };
}

/** A deterministic vector per text, of values float32 holds exactly (eighths). */
export function fakeVector(text: string, dimensions = EMBEDDING_DIMENSIONS): number[] {
  return Array.from({ length: dimensions }, (_, i) => ((text.charCodeAt(i % text.length) + i) % 16) / 8 - 1);
}

export function geminiModelList(models: GeminiModels): GeminiModel[] {
  return [
    { name: `models/${models.chat}`, displayName: "Gemini Test Flash", inputTokenLimit: 1048576, outputTokenLimit: 65536, supportedGenerationMethods: ["generateContent", "countTokens", "createCachedContent"], thinking: false },
    { name: "models/imagen-test-generate", displayName: "Imagen Test", inputTokenLimit: 480, outputTokenLimit: 8192, supportedGenerationMethods: ["predict"] },
    { name: `models/${models.thinking}`, displayName: "Gemini Test Pro", inputTokenLimit: 1048576, outputTokenLimit: 65536, supportedGenerationMethods: ["generateContent", "countTokens"], thinking: true },
    { name: `models/${models.embedding}`, displayName: "Gemini Test Embedding", inputTokenLimit: 2048, outputTokenLimit: 1, supportedGenerationMethods: ["embedContent", "countTextTokens"] },
  ];
}

const STATUS_NAMES: Record<number, string> = { 400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE" };

const MODE_ERRORS: Partial<Record<GeminiMode, [number, string]>> = {
  unavailable: [503, "The model is overloaded. Please try again later."],
  invalid: [400, "Request contains an invalid argument."],
  exhausted: [429, "Resource has been exhausted (e.g. check quota)."],
};

const METHOD = /^\/v1beta\/models\/([^/:?]+):(generateContent|streamGenerateContent|batchEmbedContents)(?:\?(.*))?$/;

export async function startGeminiUpstream(models: GeminiModels, key = "test-gemini-key"): Promise<GeminiFake> {
  const fake: GeminiFake = { url: "", key, mode: "ok", calls: 0, requests: [], last: null, close: async () => undefined };
  const fail = (res: import("node:http").ServerResponse, code: number, message: string) => {
    res.writeHead(code, { "content-type": "application/json; charset=UTF-8" });
    res.end(JSON.stringify({ error: { code, message, status: STATUS_NAMES[code] ?? "INTERNAL" } }));
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString();
    const path = req.url ?? "";
    const recorded: RecordedRequest = { method: req.method ?? "", path, headers: req.headers, body: text ? (JSON.parse(text) as unknown) : null };
    const apiKey = req.headers["x-goog-api-key"];
    if (!apiKey) return fail(res, 403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.");
    if (apiKey !== fake.key) return fail(res, 400, "API key not valid. Please pass a valid API key.");
    if (req.method === "GET" && path.startsWith("/v1beta/models?")) {
      const query = new URLSearchParams(path.split("?")[1]);
      const all = geminiModelList(models);
      // Two pages, as the real list pages: the gateway must follow nextPageToken.
      const second = query.get("pageToken") === "page-2";
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      return void res.end(JSON.stringify(second ? { models: all.slice(2) } : { models: all.slice(0, 2), nextPageToken: "page-2" }));
    }
    const method = METHOD.exec(path);
    if (req.method !== "POST" || !method) return fail(res, 404, `Method not found: ${req.method} ${path}`);
    fake.calls += 1;
    fake.requests.push(recorded);
    fake.last = recorded;
    const [, model, verb, query] = method as unknown as [string, string, string, string | undefined];
    if (![models.chat, models.thinking, models.embedding].includes(model)) return fail(res, 404, `models/${model} is not found for API version v1beta, or is not supported for ${verb}.`);
    const error = MODE_ERRORS[fake.mode];
    if (error) return fail(res, ...error);
    if (verb === "batchEmbedContents") {
      const body = recorded.body as { requests: { model: string; content: { parts: { text: string }[] }; outputDimensionality?: number }[] };
      if (body.requests.some((r) => r.model !== `models/${model}`)) return fail(res, 400, "Model names in the batch must match the model of the request.");
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      return void res.end(JSON.stringify({ embeddings: body.requests.map((r) => ({ values: fakeVector(r.content.parts[0]!.text, r.outputDimensionality) })) }));
    }
    const request = recorded.body as GeminiRequest;
    const blocked = { promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 41, totalTokenCount: 41 }, modelVersion: `${model}-001`, responseId: "resp-blocked" };
    if (verb === "generateContent") {
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      return void res.end(JSON.stringify(fake.mode === "blocked" ? blocked : recordedAnswer(request, model)));
    }
    if (query !== "alt=sse") return fail(res, 400, "This test node streams only with alt=sse.");
    res.writeHead(200, { "content-type": "text/event-stream" });
    const events = fake.mode === "blocked" ? [blocked] : recordedEvents(request, model);
    for (const event of events) {
      res.write(`data: ${JSON.stringify(event)}\r\n\r\n`);
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
