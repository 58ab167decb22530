// An instant OpenAI-compatible upstream for the gateway bench, on bare node:http. It answers
// as fast as it can, so what a gateway adds in front of it is all that a comparison measures.
//
//   GET  /health                  {"status":"ok"}
//   GET  /v1/models               a chat and an embedding model, as full model cards (so a gateway imports them)
//   POST /v1/chat/completions     a fixed small completion with usage; with `stream: true`
//                                 a few SSE chunks, a usage chunk when stream_options.include_usage,
//                                 then `data: [DONE]`
//   POST /v1/embeddings           one fixed 1536-dimension vector of floats per input (made once
//                                 per number of inputs: 64 inputs, ~1.3 MB of JSON)
//
// and an Anthropic-format upstream (a node with wire `anthropic` and URL {base}/anthropic/v1):
//
//   GET  /anthropic/v1/models     one model (Anthropic's list shape)
//   POST /anthropic/v1/messages   a fixed small Message with usage; with `stream: true` Anthropic's
//                                 events (message_start, content_block_start, ping, 3 text deltas,
//                                 content_block_stop, message_delta with usage, message_stop)
//
// and a rate-limited upstream (a node with URL {base}/limited/v1), for routes' failover:
//
//   GET  /limited/v1/models       one chat model, `mock-chat-limited`
//   POST /limited/v1/chat/completions  429 at once, with no Retry-After
//
//   MOCK_PORT=8099 node --import tsx bench/mock-upstream.ts
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export const MOCK_MODEL = "mock-chat";
export const MOCK_EMBEDDING_MODEL = "mock-embed";
export const MOCK_ANTHROPIC_MODEL = "mock-claude";
/** Where the Anthropic-format upstream lives under the mock's base URL (a node's URL: base + this). */
export const MOCK_ANTHROPIC_PREFIX = "/anthropic/v1";
/** The rate-limited upstream's model and where it lives under the mock's base URL. */
export const MOCK_LIMITED_MODEL = "mock-chat-limited";
export const MOCK_LIMITED_PREFIX = "/limited/v1";
const EMBEDDING_DIMENSIONS = 1536;
const CREATED = 1767225600;
const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };

/** What a node publishes about a model (the gateway's model card shape; see local-node/catalog.ts). */
const card = {
  id: MOCK_MODEL,
  object: "model",
  created: CREATED,
  owned_by: "bench",
  provider: "bench",
  display_name: "Bench mock chat",
  type: "chat",
  context_length: 8192,
  max_output_tokens: 1024,
  knowledge_cutoff: "2025-12",
  deprecated: false,
  capabilities: { input_modalities: ["text"], output_modalities: ["text"], json_mode: false, reasoning: false, streaming: true, structured_output: false, tools: true },
  pricing: {
    cache_read_per_1m: "0",
    input_per_1m: "0.15",
    output_per_1m: "0.6",
    per_1m_chars: "0",
    per_audio_second: "0",
    per_image: "0",
    per_video_second: "0",
    reasoning_per_1m: "0",
    pricing_status: "active",
  },
};

const embeddingCard = {
  ...card,
  id: MOCK_EMBEDDING_MODEL,
  display_name: "Bench mock embeddings",
  type: "embedding",
  max_output_tokens: 1,
  capabilities: { ...card.capabilities, output_modalities: ["embedding"], streaming: false },
  pricing: { ...card.pricing, input_per_1m: "0.02", output_per_1m: "0" },
};

const MODELS = Buffer.from(JSON.stringify({ object: "list", data: [card, embeddingCard] }));
const HEALTH = Buffer.from('{"status":"ok"}');
const COMPLETION = Buffer.from(
  JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: CREATED,
    model: MOCK_MODEL,
    choices: [{ index: 0, message: { role: "assistant", content: "Latency is low." }, finish_reason: "stop" }],
    usage,
  }),
);

const chunk = (delta: Record<string, unknown>, finish: string | null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: CREATED, model: MOCK_MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const STREAM = [chunk({ role: "assistant", content: "" }, null), chunk({ content: "Latency" }, null), chunk({ content: " is" }, null), chunk({ content: " low." }, null), chunk({}, "stop")];
const USAGE_CHUNK = `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: CREATED, model: MOCK_MODEL, choices: [], usage })}\n\n`;
const DONE = "data: [DONE]\n\n";

// Anthropic's Messages API, every answer made once.
const ANTHROPIC_MODELS = Buffer.from(
  JSON.stringify({
    data: [{ type: "model", id: MOCK_ANTHROPIC_MODEL, display_name: "Bench mock Claude", created_at: "2026-01-01T00:00:00Z" }],
    has_more: false,
    first_id: MOCK_ANTHROPIC_MODEL,
    last_id: MOCK_ANTHROPIC_MODEL,
  }),
);
const anthropicUsage = { input_tokens: 12, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const MESSAGE = Buffer.from(
  JSON.stringify({
    id: "msg_bench",
    type: "message",
    role: "assistant",
    model: MOCK_ANTHROPIC_MODEL,
    content: [{ type: "text", text: "Latency is low." }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: anthropicUsage,
  }),
);
const event = (data: Record<string, unknown> & { type: string }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
const textDelta = (text: string) => event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
const MESSAGE_EVENTS = [
  event({
    type: "message_start",
    message: { id: "msg_bench", type: "message", role: "assistant", model: MOCK_ANTHROPIC_MODEL, content: [], stop_reason: null, stop_sequence: null, usage: { ...anthropicUsage, output_tokens: 1 } },
  }),
  event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  event({ type: "ping" }),
  textDelta("Latency"),
  textDelta(" is"),
  textDelta(" low."),
  event({ type: "content_block_stop", index: 0 }),
  event({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: anthropicUsage.output_tokens } }),
];
const MESSAGE_STOP = event({ type: "message_stop" });
const ANTHROPIC_INVALID = Buffer.from('{"type":"error","error":{"type":"invalid_request_error","message":"invalid JSON"}}');
const ANTHROPIC_NOT_FOUND = Buffer.from('{"type":"error","error":{"type":"not_found_error","message":"not found"}}');

function send(res: ServerResponse, status: number, body: Buffer): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": body.length });
  res.end(body);
}

/**
 * A vector of floats as a model sends them: single-precision values written with 9 significant
 * digits, from a fixed sequence (so answers are the same from run to run).
 */
function vector(seed: number): number[] {
  let x = seed * 2654435761 % 4294967296;
  return Array.from({ length: EMBEDDING_DIMENSIONS }, () => {
    x = (x * 1664525 + 1013904223) % 4294967296;
    return Number(Math.fround(x / 4294967296 / 5 - 0.1).toPrecision(9));
  });
}

const embeddingAnswers = new Map<number, Buffer>();
function embeddingAnswer(inputs: number): Buffer {
  let answer = embeddingAnswers.get(inputs);
  if (!answer) {
    const data = Array.from({ length: inputs }, (_, index) => ({ object: "embedding", index, embedding: vector(index + 1) }));
    answer = Buffer.from(JSON.stringify({ object: "list", data, model: MOCK_EMBEDDING_MODEL, usage: { prompt_tokens: inputs * 8, total_tokens: inputs * 8 } }));
    embeddingAnswers.set(inputs, answer);
  }
  return answer;
}

function embeddings(req: IncomingMessage, res: ServerResponse): void {
  const parts: Buffer[] = [];
  req.on("data", (c: Buffer) => parts.push(c));
  req.on("end", () => {
    try {
      const { input } = JSON.parse(Buffer.concat(parts).toString("utf8")) as { input: unknown };
      send(res, 200, embeddingAnswer(Array.isArray(input) ? input.length : 1));
    } catch {
      send(res, 400, Buffer.from('{"error":{"message":"invalid JSON","type":"invalid_request_error"}}'));
    }
  });
}

function chat(req: IncomingMessage, res: ServerResponse): void {
  const parts: Buffer[] = [];
  req.on("data", (c: Buffer) => parts.push(c));
  req.on("end", () => {
    let body: { stream?: boolean; stream_options?: { include_usage?: boolean } | null };
    try {
      body = JSON.parse(Buffer.concat(parts).toString("utf8"));
    } catch {
      return send(res, 400, Buffer.from('{"error":{"message":"invalid JSON","type":"invalid_request_error"}}'));
    }
    if (!body.stream) return send(res, 200, COMPLETION);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const c of STREAM) res.write(c);
    if (body.stream_options?.include_usage) res.write(USAGE_CHUNK);
    res.end(DONE);
  });
}

function messages(req: IncomingMessage, res: ServerResponse): void {
  const parts: Buffer[] = [];
  req.on("data", (c: Buffer) => parts.push(c));
  req.on("end", () => {
    let body: { stream?: boolean };
    try {
      body = JSON.parse(Buffer.concat(parts).toString("utf8"));
    } catch {
      return send(res, 400, ANTHROPIC_INVALID);
    }
    if (!body.stream) return send(res, 200, MESSAGE);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const e of MESSAGE_EVENTS) res.write(e);
    res.end(MESSAGE_STOP);
  });
}

function anthropic(req: IncomingMessage, res: ServerResponse, url: string): void {
  const rest = url.slice(MOCK_ANTHROPIC_PREFIX.length);
  if (req.method === "POST" && (rest === "/messages" || rest.startsWith("/messages?"))) return messages(req, res);
  if (req.method === "GET" && (rest === "/models" || rest.startsWith("/models?"))) return send(res, 200, ANTHROPIC_MODELS);
  req.resume();
  send(res, 404, ANTHROPIC_NOT_FOUND);
}

const LIMITED_MODELS = Buffer.from(JSON.stringify({ object: "list", data: [{ ...card, id: MOCK_LIMITED_MODEL, display_name: "Bench mock chat, always rate limited" }] }));
const LIMITED = Buffer.from('{"error":{"message":"rate limited","type":"rate_limit_error","code":null,"param":null}}');

function limited(req: IncomingMessage, res: ServerResponse, url: string): void {
  const rest = url.slice(MOCK_LIMITED_PREFIX.length);
  req.resume();
  if (req.method === "GET" && rest.startsWith("/models")) return send(res, 200, LIMITED_MODELS);
  if (req.method === "POST" && rest.startsWith("/chat/completions")) return void req.on("end", () => send(res, 429, LIMITED));
  send(res, 404, Buffer.from('{"error":{"message":"not found","type":"invalid_request_error"}}'));
}

export function startMockUpstream(port: number, host = "127.0.0.1") {
  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (url.startsWith(`${MOCK_LIMITED_PREFIX}/`)) return limited(req, res, url);
    if (req.method === "POST" && url.startsWith("/v1/chat/completions")) return chat(req, res);
    if (req.method === "POST" && url.startsWith("/v1/embeddings")) return embeddings(req, res);
    if (req.method === "GET" && url.startsWith("/v1/models")) return send(res, 200, MODELS);
    if (req.method === "GET" && url === "/health") return send(res, 200, HEALTH);
    if (url.startsWith(`${MOCK_ANTHROPIC_PREFIX}/`)) return anthropic(req, res, url);
    req.resume();
    send(res, 404, Buffer.from('{"error":{"message":"not found","type":"invalid_request_error"}}'));
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, host);
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.MOCK_PORT ?? 8099);
  startMockUpstream(port).on("listening", () => console.log(`mock upstream listening on http://127.0.0.1:${port}`));
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => process.exit(0));
}
