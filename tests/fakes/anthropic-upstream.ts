// A stand-in Anthropic node: Anthropic's Messages API on the wire (POST /v1/messages, plain and
// streamed, POST /v1/messages/count_tokens, GET /v1/models), shaped by the official SDK's types.
// It checks the key and `anthropic-version`, records the last request, answers from recorded-style
// fixtures (text, thinking with its signature, a tool call, parallel tool calls, cache usage), and
// fails on cue: 529 overloaded_error, 400 invalid_request_error, or an `error` event mid-stream.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Message, MessageCreateParamsBase, RawMessageStreamEvent, StopReason, Usage } from "@anthropic-ai/sdk/resources/messages";
import type { ModelInfo } from "@anthropic-ai/sdk/resources/models";
import type { ErrorResponse } from "@anthropic-ai/sdk/resources/shared";
import { freePort } from "../../server/infra/net/free-port";

export const ANTHROPIC_KEY = "sk-ant-test";
export const ANTHROPIC_VERSION = "2023-06-01";

type Block = Message["content"][number];
/** An answer for a request (the request decides the model, and a stop sequence's text). */
export type Fixture = (req: MessageCreateParamsBase) => Message;
export type AnthropicMode = "ok" | "overloaded" | "invalid" | "stream-error";

export type AnthropicUpstream = {
  /** The node's origin (a node added with it gets /v1). */
  url: string;
  mode: AnthropicMode;
  /** What the next /v1/messages calls answer. */
  fixture: Fixture;
  calls: number;
  last: { path: string; headers: IncomingMessage["headers"]; body: MessageCreateParamsBase & { stream?: boolean } } | null;
  models: ModelInfo[];
  close: () => Promise<void>;
};

export const usageOf = (u: Partial<Usage>): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation: null,
  inference_geo: null,
  output_tokens_details: null,
  server_tool_use: null,
  service_tier: "standard",
  speed: null,
  ...u,
});

export function message(req: Pick<MessageCreateParamsBase, "model">, content: Block[], stop: StopReason, usage: Partial<Usage>, stopSequence: string | null = null): Message {
  return {
    id: "msg_01XFDUDYJgAACzvnptvVoYEL",
    type: "message",
    role: "assistant",
    model: req.model,
    content,
    stop_reason: stop,
    stop_sequence: stopSequence,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: usageOf(usage),
  } as Message;
}

const text = (t: string): Block => ({ type: "text", text: t, citations: null });
const toolUse = (id: string, name: string, input: unknown): Block => ({ type: "tool_use", id, name, input, caller: { type: "direct" } }) as Block;
export const SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds";

export const FIXTURES = {
  text: ((req) => message(req, [text("Hello! How can I help you today?")], "end_turn", { input_tokens: 21, output_tokens: 12 })) as Fixture,
  thinking: ((req) =>
    message(req, [{ type: "thinking", thinking: "The user asks for 2+2. That is 4.", signature: SIGNATURE }, text("2 + 2 = 4.")], "end_turn", {
      input_tokens: 30,
      output_tokens: 95,
      output_tokens_details: { thinking_tokens: 80 },
    })) as Fixture,
  tool: ((req) =>
    message(req, [text("Let me check the weather."), toolUse("toolu_01A09q90qw90lq917835lq9", "get_weather", { location: "San Francisco, CA", unit: "celsius" })], "tool_use", {
      input_tokens: 380,
      output_tokens: 71,
    })) as Fixture,
  parallel: ((req) =>
    message(
      req,
      [toolUse("toolu_01Pa1", "get_weather", { location: "Paris" }), toolUse("toolu_01Pa2", "get_time", { timezone: "Europe/Paris", format: { hours: 24 } })],
      "tool_use",
      { input_tokens: 410, output_tokens: 88 },
    )) as Fixture,
  cached: ((req) =>
    message(req, [text("From the cached document: yes.")], "end_turn", { input_tokens: 7, cache_creation_input_tokens: 1200, cache_read_input_tokens: 3400, output_tokens: 9 })) as Fixture,
  json: ((req) => message(req, [text('{"name":"Ada","age":36}')], "end_turn", { input_tokens: 40, output_tokens: 11 })) as Fixture,
  jsonTool: ((req) => message(req, [toolUse("toolu_01Js", "json_response", { answer: 42 })], "tool_use", { input_tokens: 44, output_tokens: 13 })) as Fixture,
  stopSequence: ((req) => message(req, [text("one, two, three")], "stop_sequence", { input_tokens: 15, output_tokens: 6 }, req.stop_sequences?.[0] ?? null)) as Fixture,
  maxTokens: ((req) => message(req, [text("This answer was cut")], "max_tokens", { input_tokens: 15, output_tokens: req.max_tokens })) as Fixture,
  refusal: ((req) => message(req, [text("I can't help with that.")], "refusal", { input_tokens: 18, output_tokens: 7 })) as Fixture,
};

/** `s` in `parts` pieces, as a model streams it. */
function pieces(s: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(s.length / parts));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

/**
 * A Message as the exact event sequence Anthropic streams it in: message_start (no content yet,
 * output_tokens 1), ping, per block content_block_start / deltas / content_block_stop (a tool's
 * input as input_json_delta pieces, the first one empty; a thinking block's signature last),
 * message_delta with the stop reason and the cumulative usage, message_stop.
 */
export function streamEvents(m: Message): (RawMessageStreamEvent | { type: "ping" })[] {
  const events: (RawMessageStreamEvent | { type: "ping" })[] = [
    { type: "message_start", message: { ...m, content: [], stop_reason: null, stop_sequence: null, usage: { ...m.usage, output_tokens: 1 } } },
    { type: "ping" },
  ];
  m.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { ...block, text: "" } });
      for (const t of pieces(block.text, 3)) events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: t } });
    } else if (block.type === "thinking") {
      events.push({ type: "content_block_start", index, content_block: { ...block, thinking: "", signature: "" } });
      for (const t of pieces(block.thinking, 3)) events.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: t } });
      events.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } });
    } else if (block.type === "tool_use") {
      events.push({ type: "content_block_start", index, content_block: { ...block, input: {} } });
      for (const t of ["", ...pieces(JSON.stringify(block.input), 4)]) events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: t } });
    }
    events.push({ type: "content_block_stop", index });
  });
  const { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens_details, server_tool_use } = m.usage;
  events.push({
    type: "message_delta",
    delta: { stop_reason: m.stop_reason, stop_sequence: m.stop_sequence, stop_details: null, container: null },
    usage: { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens_details, server_tool_use },
  } as RawMessageStreamEvent);
  events.push({ type: "message_stop" });
  return events;
}

export const sse = (event: { type: string }) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

const errorBody = (type: string, msg: string): ErrorResponse => ({ type: "error", error: { type, message: msg } as ErrorResponse["error"], request_id: "req_011CTestAnthropic" });

export const model = (id: string, extra: Partial<ModelInfo> = {}): ModelInfo =>
  ({ type: "model", id, display_name: id, created_at: "2026-02-17T00:00:00Z", capabilities: null, deprecated_at: null, lifecycle: "active", line: null, max_input_tokens: null, max_tokens: null, retires_at: null, ...extra }) as ModelInfo;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString() || "{}");
}

/** GET /v1/models pages `pageSize` models at a time (fewer than asked for), so listing must follow after_id. */
function modelsPage(models: ModelInfo[], query: URLSearchParams, pageSize: number) {
  const after = query.get("after_id");
  const start = after ? models.findIndex((m) => m.id === after) + 1 : 0;
  const data = models.slice(start, start + Math.min(pageSize, Number(query.get("limit") ?? 20)));
  return { data, has_more: start + data.length < models.length, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

export async function startAnthropicUpstream(models: ModelInfo[], pageSize = 2): Promise<AnthropicUpstream> {
  const fake: AnthropicUpstream = { url: "", mode: "ok", fixture: FIXTURES.text, calls: 0, last: null, models, close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json", "request-id": "req_011CTestAnthropic" }).end(JSON.stringify(body));
    if (req.headers["x-api-key"] !== ANTHROPIC_KEY) return void json(401, errorBody("authentication_error", "invalid x-api-key"));
    if (req.headers["anthropic-version"] !== ANTHROPIC_VERSION) return void json(400, errorBody("invalid_request_error", "anthropic-version: header is required"));
    if (req.method === "GET" && url.pathname === "/v1/models") return void json(200, modelsPage(fake.models, url.searchParams, pageSize));
    if (req.method !== "POST") return void json(404, errorBody("not_found_error", "Not found"));
    const body = (await readJson(req)) as MessageCreateParamsBase & { stream?: boolean };
    if (url.pathname === "/v1/messages/count_tokens") return void json(200, { input_tokens: Math.ceil(JSON.stringify(body.messages).length / 4) });
    if (url.pathname !== "/v1/messages") return void json(404, errorBody("not_found_error", "Not found"));
    fake.calls += 1;
    fake.last = { path: url.pathname, headers: req.headers, body };
    if (fake.mode === "overloaded") return void json(529, errorBody("overloaded_error", "Overloaded"));
    if (fake.mode === "invalid") return void json(400, errorBody("invalid_request_error", "messages.0.content: text content blocks must be non-empty"));
    const answer = fake.fixture(body);
    if (!body.stream) return void json(200, answer);
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
    const events = streamEvents(answer);
    for (const [i, event] of events.entries()) {
      if (fake.mode === "stream-error" && i === 4) return void res.end(sse(errorBody("overloaded_error", "Overloaded")));
      res.write(sse(event));
    }
    res.end();
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
