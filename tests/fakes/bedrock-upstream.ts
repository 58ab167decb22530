// A stand-in Bedrock node: its runtime (Converse, ConverseStream, InvokeModel and
// InvokeModelWithResponseStream for Claude and for Titan and Cohere embeddings) and its control
// plane (GET /foundation-models, /inference-profiles in two pages) on one address. Every request's
// SigV4 signature is computed again here with the same secret (the AWS signer, over the request
// as received) and a wrong one is refused with Bedrock's 403. Streams are real AWS event streams
// (the AWS codec), in the event order Bedrock sends. Answers come from recorded-style fixtures
// (text in pieces, a tool call with its input streamed as JSON pieces, two parallel calls,
// reasoning with its signature, cache usage); modes answer throttling (429), an exception frame
// mid-stream, and a context overflow (400 ValidationException). Requests are recorded.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Sha256 } from "@aws-crypto/sha256-js";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import type { Message } from "@anthropic-ai/sdk/resources/messages";
import { freePort } from "../../server/infra/net/free-port";
import { FIXTURES as CLAUDE, streamEvents, type Fixture } from "./anthropic-upstream";
import { fakeVector } from "./gemini-upstream";

export const REGION = "us-east-1";
export const KEYS = { access_key_id: "AKIAIOSFODNN7EXAMPLE", secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export type BedrockMode = "ok" | "throttled" | "stream-exception" | "overflow";
export type Recorded = { method: string; path: string; headers: IncomingMessage["headers"]; body: Json | null };
export type ConverseFixture = { content: Json[]; stopReason: string; usage: Json };

export type BedrockUpstream = {
  url: string;
  mode: BedrockMode;
  /** What the next Converse calls answer, and the next InvokeModel calls to Claude. */
  converse: ConverseFixture;
  claude: Fixture;
  requests: Recorded[];
  last: Recorded | null;
  calls: number;
  /**
   * The control plane's lists (the gateway's health check) answered whatever the signature, so a
   * test can show a call refused for a wrong secret before the check takes the node offline.
   */
  listsUnsigned: boolean;
  close: () => Promise<void>;
};

export const SIGNATURE = "ErcBCkgIBhABGAIiQLlW5H7zs3j8s0Vgw+p0LK1nM8Qb";
export const REASONING = "The user greets me. I answer kindly.";
const text = (t: string) => ({ text: t });
const toolUse = (toolUseId: string, name: string, input: Json) => ({ toolUse: { toolUseId, name, input } });
const usage = (inputTokens: number, outputTokens: number, cache: Json = {}) => ({ inputTokens, outputTokens, totalTokens: inputTokens + outputTokens + (cache.cacheReadInputTokens ?? 0) + (cache.cacheWriteInputTokens ?? 0), ...cache });

export const CONVERSE = {
  text: { content: [text("Hello from Bedrock, how can I help?")], stopReason: "end_turn", usage: usage(25, 11) },
  stop: { content: [text("one, two, three")], stopReason: "stop_sequence", usage: usage(15, 6) },
  maxTokens: { content: [text("This answer was")], stopReason: "max_tokens", usage: usage(15, 5) },
  tool: { content: [text("Let me check."), toolUse("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "get_weather", { city: "Paris", unit: "celsius" })], stopReason: "tool_use", usage: usage(310, 52) },
  parallel: {
    content: [toolUse("tooluse_Pa1", "get_weather", { city: "Paris" }), toolUse("tooluse_Pa2", "get_time", { timezone: "Europe/Paris", format: { hours: 24 } })],
    stopReason: "tool_use",
    usage: usage(330, 70),
  },
  json: { content: [toolUse("tooluse_Js", "json_response", { city: "Paris", temp: 21 })], stopReason: "tool_use", usage: usage(60, 14) },
  reasoning: { content: [{ reasoningContent: { reasoningText: { text: REASONING, signature: SIGNATURE } } }, text("Hello!")], stopReason: "end_turn", usage: usage(30, 64) },
  cached: { content: [text("From the cached document: yes.")], stopReason: "end_turn", usage: usage(7, 9, { cacheReadInputTokens: 3400, cacheWriteInputTokens: 1200 }) },
} satisfies Record<string, ConverseFixture>;

export const FOUNDATION_MODELS = [
  { modelId: "amazon.nova-wiretest-v1:0", modelName: "Nova Wiretest", providerName: "Amazon", inputModalities: ["TEXT", "IMAGE"], outputModalities: ["TEXT"], responseStreamingSupported: true, inferenceTypesSupported: ["ON_DEMAND"], modelLifecycle: { status: "ACTIVE" } },
  { modelId: "anthropic.claude-wiretest-v1:0", modelName: "Claude Wiretest", providerName: "Anthropic", inputModalities: ["TEXT", "IMAGE"], outputModalities: ["TEXT"], responseStreamingSupported: true, inferenceTypesSupported: ["INFERENCE_PROFILE"], modelLifecycle: { status: "ACTIVE" } },
  { modelId: "amazon.titan-embed-text-v2:0", modelName: "Titan Text Embeddings V2", providerName: "Amazon", inputModalities: ["TEXT"], outputModalities: ["EMBEDDING"], inferenceTypesSupported: ["ON_DEMAND"], modelLifecycle: { status: "ACTIVE" } },
  { modelId: "stability.wiretest-image-v1:0", modelName: "An image model", providerName: "Stability AI", inputModalities: ["TEXT"], outputModalities: ["IMAGE"], inferenceTypesSupported: ["ON_DEMAND"], modelLifecycle: { status: "ACTIVE" } },
];
export const PROFILES = [
  { inferenceProfileId: "us.anthropic.claude-wiretest-v1:0", inferenceProfileName: "US Claude Wiretest", status: "ACTIVE", type: "SYSTEM_DEFINED", models: [{ modelArn: `arn:aws:bedrock:${REGION}::foundation-model/anthropic.claude-wiretest-v1:0` }] },
  { inferenceProfileId: "us.amazon.nova-wiretest-v1:0", inferenceProfileName: "US Nova Wiretest", status: "ACTIVE", type: "SYSTEM_DEFINED", models: [{ modelArn: `arn:aws:bedrock:${REGION}::foundation-model/amazon.nova-wiretest-v1:0` }] },
];

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const str = (value: string) => ({ type: "string" as const, value });
/** Bedrock pads each event's payload (`p`) so its size tells nothing. */
const eventFrame = (type: string, payload: Json) =>
  codec.encode({ headers: { ":event-type": str(type), ":content-type": str("application/json"), ":message-type": str("event") }, body: fromUtf8(JSON.stringify({ ...payload, p: "abcdefghijklmnopqrstuvwxyzABCDEFGH".slice(0, 1 + (type.length % 20)) })) });
export const exceptionFrame = (type: string, message: string) =>
  codec.encode({ headers: { ":exception-type": str(type), ":content-type": str("application/json"), ":message-type": str("exception") }, body: fromUtf8(JSON.stringify({ message })) });

function pieces(s: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(s.length / parts));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

/** A Converse answer as ConverseStream's events, in Bedrock's order. */
export function converseEvents(f: ConverseFixture): [string, Json][] {
  const events: [string, Json][] = [["messageStart", { role: "assistant" }]];
  f.content.forEach((block, contentBlockIndex) => {
    const delta = (d: Json) => events.push(["contentBlockDelta", { contentBlockIndex, delta: d }]);
    if (block.text !== undefined) for (const t of pieces(block.text, 3)) delta({ text: t });
    if (block.toolUse) {
      events.push(["contentBlockStart", { contentBlockIndex, start: { toolUse: { toolUseId: block.toolUse.toolUseId, name: block.toolUse.name } } }]);
      for (const t of pieces(JSON.stringify(block.toolUse.input), 3)) delta({ toolUse: { input: t } });
    }
    if (block.reasoningContent) {
      for (const t of pieces(block.reasoningContent.reasoningText.text, 3)) delta({ reasoningContent: { text: t } });
      delta({ reasoningContent: { signature: block.reasoningContent.reasoningText.signature } });
    }
    events.push(["contentBlockStop", { contentBlockIndex }]);
  });
  events.push(["messageStop", { stopReason: f.stopReason }], ["metadata", { usage: f.usage, metrics: { latencyMs: 412 } }]);
  return events;
}

/** A Claude message's stream as InvokeModelWithResponseStream's chunk events (Anthropic's events as base64 bytes). */
export function claudeChunks(m: Message): Uint8Array[] {
  return streamEvents(m)
    .filter((e) => e.type !== "ping")
    .map((e) => {
      const event = e.type === "message_stop" ? { ...e, "amazon-bedrock-invocationMetrics": { inputTokenCount: m.usage.input_tokens, outputTokenCount: m.usage.output_tokens, invocationLatency: 812, firstByteLatency: 301 } } : e;
      return eventFrame("chunk", { bytes: Buffer.from(JSON.stringify(event)).toString("base64") });
    });
}

const signer = new SignatureV4({ credentials: { accessKeyId: KEYS.access_key_id, secretAccessKey: KEYS.secret_access_key }, region: REGION, service: "bedrock", sha256: Sha256 });

/** Whether the request's signature is the one its secret makes: the request signed again, as received. */
async function signedRight(req: IncomingMessage, url: URL, raw: string): Promise<boolean> {
  const auth = String(req.headers.authorization ?? "");
  const names = /SignedHeaders=([^,]+)/.exec(auth)?.[1]?.split(";") ?? [];
  const date = String(req.headers["x-amz-date"] ?? "");
  if (!auth.startsWith(`AWS4-HMAC-SHA256 Credential=${KEYS.access_key_id}/`) || !date) return false;
  const headers = Object.fromEntries(names.map((n) => [n, String(req.headers[n] ?? "")]));
  const signingDate = new Date(date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"));
  const request = new HttpRequest({ method: req.method, protocol: "http:", hostname: url.hostname, port: Number(url.port), path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body: raw || undefined });
  const signed = await signer.sign(request, { signingDate, unsignableHeaders: new Set(), signableHeaders: new Set(names) });
  return signed.headers.authorization === auth;
}

const awsError = (res: ServerResponse, status: number, type: string, message: string) =>
  void res.writeHead(status, { "content-type": "application/json", "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, "x-amzn-requestid": "b1d0e5c2-req" }).end(JSON.stringify({ message }));

function stream(res: ServerResponse, frames: Uint8Array[], mode: BedrockMode) {
  res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "b1d0e5c2-req" });
  for (const [i, frame] of frames.entries()) {
    if (mode === "stream-exception" && i === 3) return void res.end(exceptionFrame("modelStreamErrorException", "The model stream failed: try again."));
    res.write(frame);
  }
  res.end();
}

function invoke(res: ServerResponse, model: string, body: Json, fake: BedrockUpstream, streamed: boolean) {
  if (model.startsWith("amazon.titan-embed-")) {
    const embedding = fakeVector(body.inputText, body.dimensions ?? 8);
    return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ embedding, embeddingsByType: { float: embedding }, inputTextTokenCount: body.inputText.split(" ").length }));
  }
  const message = fake.claude({ ...body, model: model.replace(/^us\./, "").replace(/-v1:0$/, "") } as never);
  if (!streamed) return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...message, id: "msg_bdrk_01ABC" }));
  stream(res, claudeChunks({ ...message, id: "msg_bdrk_01ABC" }), fake.mode);
}

export async function startBedrockUpstream(): Promise<BedrockUpstream> {
  const fake: BedrockUpstream = { url: "", mode: "ok", converse: CONVERSE.text, claude: CLAUDE.text, requests: [], last: null, calls: 0, listsUnsigned: false, close: async () => undefined };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const list = req.method === "GET" && (url.pathname === "/foundation-models" || url.pathname === "/inference-profiles");
    if (!(list && fake.listsUnsigned) && !(await signedRight(req, url, raw))) {
      return awsError(res, 403, "InvalidSignatureException", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.");
    }
    if (req.method === "GET" && url.pathname === "/foundation-models") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ modelSummaries: FOUNDATION_MODELS }));
    if (req.method === "GET" && url.pathname === "/inference-profiles") {
      const page = url.searchParams.get("nextToken") === "page-2" ? 1 : 0;
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ inferenceProfileSummaries: [PROFILES[page]], ...(page === 0 && { nextToken: "page-2" }) }));
    }
    const route = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/.exec(url.pathname);
    if (req.method !== "POST" || !route) return awsError(res, 404, "UnknownOperationException", "Unknown operation");
    const body = JSON.parse(raw || "{}") as Json;
    fake.calls += 1;
    fake.last = { method: req.method, path: url.pathname, headers: req.headers, body };
    fake.requests.push(fake.last);
    const [model, action] = [decodeURIComponent(route[1]!), route[2]!];
    if (fake.mode === "throttled") return awsError(res, 429, "ThrottlingException", "Too many requests, please wait before trying again.");
    if (fake.mode === "overflow") return awsError(res, 400, "ValidationException", "Input is too long for requested model.");
    if (action === "converse") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ output: { message: { role: "assistant", content: fake.converse.content } }, stopReason: fake.converse.stopReason, usage: fake.converse.usage, metrics: { latencyMs: 412 } }));
    if (action === "converse-stream") return stream(res, converseEvents(fake.converse).map(([type, payload]) => eventFrame(type, payload)), fake.mode);
    invoke(res, model, body, fake, action === "invoke-with-response-stream");
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
