// A stand-in Azure OpenAI resource (https://<resource>.openai.azure.com) on 127.0.0.1: deployment
// paths (`/openai/deployments/<dep>/chat/completions?api-version=...`, `/embeddings`) and the v1
// API (`/openai/v1/chat/completions`, `/embeddings`, `/models`), the data plane's deployment
// list, Azure's error bodies (401, DeploymentNotFound, a missing or unknown api-version, 429 with
// retry-after and retry-after-ms, context_length_exceeded, content_filter) and its annotations
// (prompt_filter_results, content_filter_results). It takes the resource's `api-key` or a bearer
// token that its Entra ID stand-in (below: an https token endpoint for @azure/identity's
// ClientSecretCredential) issued and that has not expired. Every request is recorded.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../server/infra/net/free-port";

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const AZURE_KEY = "azure-test-key-0123456789";
export const API_VERSIONS = ["2024-10-21", "2025-04-01-preview"];
/** `refused`: calls refuse the credentials (the model list still answers); `revoked`: every request does. */
export type AzureMode = "ok" | "rate-limited" | "overflow" | "filtered" | "refused" | "revoked";
export type RecordedRequest = { method: string; path: string; query: URLSearchParams; headers: IncomingMessage["headers"]; body: Any | null };

export type AzureFake = {
  url: string;
  mode: AzureMode;
  /** Deployment name -> the model it runs. */
  deployments: Record<string, string>;
  /** Bearer tokens it takes, with when each expires (ms): given by the Entra stand-in. */
  tokens: Map<string, number>;
  calls: number;
  requests: RecordedRequest[];
  last: RecordedRequest | null;
  close: () => Promise<void>;
};

const ERRORS = {
  key: [401, { error: { code: "401", message: "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource." } }],
  token: [401, { error: { code: "PermissionDenied", message: "Principal does not have access to API/Operation." } }],
  notFound: [404, { error: { code: "404", message: "Resource not found" } }],
  version: [400, { error: { code: "BadRequest", message: "API version not supported" } }],
  deployment: [404, { error: { code: "DeploymentNotFound", message: "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again." } }],
  "rate-limited": [429, { error: { code: "429", message: "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current AIServices S0 pricing tier. Please retry after 7 seconds." } }],
  overflow: [400, { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130017 tokens. Please reduce the length of the messages.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } }],
  filtered: [
    400,
    {
      error: {
        message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
        type: null,
        param: "prompt",
        code: "content_filter",
        status: 400,
        innererror: { code: "ResponsibleAIPolicyViolation", content_filter_result: { hate: { filtered: false, severity: "safe" }, violence: { filtered: true, severity: "high" } } },
      },
    },
  ],
} as const;

function send(res: ServerResponse, [status, body]: readonly [number, unknown], headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", "apim-request-id": "fake-apim", ...headers });
  res.end(JSON.stringify(body));
}

/** Whether the request carries the key or a live token; which refusal it gets otherwise. */
function refusal(fake: AzureFake, req: IncomingMessage): keyof typeof ERRORS | null {
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  if (fake.mode === "revoked" || (fake.mode === "refused" && req.method === "POST")) return bearer ? "token" : "key";
  if (bearer) return (fake.tokens.get(bearer) ?? 0) > Date.now() ? null : "token";
  return req.headers["api-key"] === AZURE_KEY ? null : "key";
}

const ROUTE = /^\/openai\/(?:deployments\/([^/]+)\/|v1\/)(chat\/completions|embeddings|models)$/;

export async function startAzureUpstream(deployments: Record<string, string>): Promise<AzureFake> {
  const fake: AzureFake = { url: "", mode: "ok", deployments, tokens: new Map(), calls: 0, requests: [], last: null, close: async () => undefined };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? "/", "http://fake");
    const recorded: RecordedRequest = { method: req.method ?? "", path: url.pathname, query: url.searchParams, headers: req.headers, body: text ? JSON.parse(text) : null };
    fake.requests.push(recorded);
    const denied = refusal(fake, req);
    if (denied) return send(res, ERRORS[denied]);
    const route = ROUTE.exec(url.pathname);
    const listing = url.pathname === "/openai/deployments";
    if (!route && !listing) return send(res, ERRORS.notFound);
    // Deployment paths (and the data plane's listing) need a known api-version; the v1 API none.
    if (listing || route![1]) {
      const version = url.searchParams.get("api-version");
      if (!version) return send(res, ERRORS.notFound);
      if (![...API_VERSIONS, "2022-12-01"].includes(version)) return send(res, ERRORS.version);
    }
    const list = (object: string) => Object.entries(fake.deployments).map(([id, model]) => ({ id, model, object, status: "succeeded", owner: "organization-owner", created_at: 1_700_000_000 }));
    if (req.method === "GET" && listing) return send(res, [200, { object: "list", data: list("deployment") }]);
    if (req.method === "GET" && route?.[2] === "models" && !route[1]) return send(res, [200, { object: "list", data: list("model") }]);
    if (req.method !== "POST" || !route || route[2] === "models") return send(res, ERRORS.notFound);
    fake.calls += 1;
    fake.last = recorded;
    const deployment = route[1] ? decodeURIComponent(route[1]) : String(recorded.body?.model);
    if (!fake.deployments[deployment]) return send(res, ERRORS.deployment);
    if (fake.mode === "rate-limited") return send(res, ERRORS["rate-limited"], { "retry-after": "7", "retry-after-ms": "7000", "x-ratelimit-remaining-tokens": "0" });
    if (fake.mode === "overflow" || fake.mode === "filtered") return send(res, ERRORS[fake.mode]);
    const model = fake.deployments[deployment]!;
    if (route[2] === "embeddings") return send(res, [200, embeddingOf(recorded.body!, model)]);
    if (!recorded.body?.stream) return send(res, [200, chatAnswer(recorded.body!, model)]);
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
    for (const chunk of chatChunks(recorded.body, model)) {
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      await new Promise((r) => setImmediate(r));
    }
    res.end("data: [DONE]\n\n");
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}

// ---- The answers: recorded-style, chosen by what the request asks. ----

export const TEXT = ["Hello", " from", " Azure."];
export const JSON_TEXT = ['{"city":', '"Paris","temp"', ":21}"];
export const TOOL_RESULT_TEXT = ["It is sunny", " in Paris."];
export const WEATHER_ARGS = ['{"city":', '"Paris"}'];
export const TIME_ARGS = ['{"zone":', '"Asia/Tokyo"}'];
export const USAGE = { prompt_tokens: 31, completion_tokens: 7, total_tokens: 38, prompt_tokens_details: { cached_tokens: 10, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } };
const SAFE = { hate: { filtered: false, severity: "safe" }, self_harm: { filtered: false, severity: "safe" }, sexual: { filtered: false, severity: "safe" }, violence: { filtered: false, severity: "safe" } };
const PROMPT_FILTER = [{ prompt_index: 0, content_filter_results: SAFE }];

type Answer = { text: string[]; calls: { id: string; name: string; args: string[] }[]; finish: string };

function answerOf(body: Any): Answer {
  const messages = (body.messages ?? []) as Any[];
  const last = messages.at(-1) ?? {};
  const lastText = typeof last.content === "string" ? last.content : JSON.stringify(last.content ?? "");
  const stops = ([] as string[]).concat(body.stop ?? []);
  if (last.role === "tool") return { text: TOOL_RESULT_TEXT, calls: [], finish: "stop" };
  if (body.tools?.length && body.tool_choice !== "none") {
    const weather = { id: "call_wx1", name: "get_weather", args: WEATHER_ARGS };
    const calls = /parallel/i.test(lastText) ? [weather, { id: "call_tm2", name: "get_time", args: TIME_ARGS }] : [weather];
    return { text: [], calls, finish: "tool_calls" };
  }
  if (body.response_format?.type === "json_schema") return { text: JSON_TEXT, calls: [], finish: "stop" };
  if ((body.max_completion_tokens ?? body.max_tokens ?? Infinity) < 3) return { text: TEXT.slice(0, 1), calls: [], finish: "length" };
  if (stops.includes(" Azure.")) return { text: TEXT.slice(0, 2), calls: [], finish: "stop" };
  return { text: TEXT, calls: [], finish: "stop" };
}

const base = (model: string) => ({ id: "chatcmpl-azurefake", created: 1_760_000_000, model, system_fingerprint: "fp_azure" });

/** A chat.completion as Azure answers it (with its filter annotations). */
export function chatAnswer(body: Any, model: string): Any {
  const a = answerOf(body);
  const tool_calls = a.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.args.join("") } }));
  const message = { role: "assistant", content: a.text.length ? a.text.join("") : null, refusal: null, annotations: [], ...(tool_calls.length && { tool_calls }) };
  return { ...base(model), object: "chat.completion", prompt_filter_results: PROMPT_FILTER, choices: [{ index: 0, finish_reason: a.finish, logprobs: null, message, content_filter_results: SAFE }], usage: USAGE };
}

/** The chunks of the same answer streamed: Azure's prompt annotation first, the usage last when asked for. */
export function chatChunks(body: Any, model: string): Any[] {
  const a = answerOf(body);
  const chunk = (delta: Any, finish: string | null = null) => ({ ...base(model), object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish, logprobs: null, content_filter_results: delta.content ? SAFE : {} }] });
  const out: Any[] = [{ id: "", object: "", created: 0, model: "", choices: [], prompt_filter_results: PROMPT_FILTER }, chunk({ role: "assistant", content: "", refusal: null })];
  for (const text of a.text) out.push(chunk({ content: text }));
  a.calls.forEach((c, index) => {
    out.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
    for (const piece of c.args) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  out.push(chunk({}, a.finish));
  if (body.stream_options?.include_usage) out.push({ ...base(model), object: "chat.completion.chunk", choices: [], usage: USAGE });
  return out;
}

/** A deterministic vector per text, of values float32 holds exactly (eighths). */
export function fakeVector(text: string, dimensions = 8): number[] {
  return Array.from({ length: dimensions }, (_, i) => ((text.charCodeAt(i % text.length) + i) % 16) / 8 - 1);
}

export function embeddingOf(body: Any, model: string): Any {
  const inputs = ([] as string[]).concat(body.input);
  const encode = (v: number[]) => (body.encoding_format === "base64" ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v);
  const data = inputs.map((text, index) => ({ object: "embedding", index, embedding: encode(fakeVector(text, body.dimensions)) }));
  const tokens = inputs.reduce((n, t) => n + t.split(/\s+/).length, 0);
  return { object: "list", model, data, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

// ---- Microsoft Entra ID: the token endpoint a ClientSecretCredential calls. ----

export const ENTRA = { tenant: "7e57e57e-0000-4000-8000-000000000001", clientId: "0a0a0a0a-1111-4111-8111-111111111111", clientSecret: "entra-test-secret-do-not-echo" };
export const SCOPE = "https://cognitiveservices.azure.com/.default";

export type EntraFake = {
  /** What AZURE_AUTHORITY_HOST is set to. */
  authorityHost: string;
  /** The stand-in's self-signed certificate (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  /** The lifetime of the tokens it issues (s). */
  lifetimeSeconds: number;
  issued: { token: string; at: number; expiresAt: number }[];
  close: () => Promise<void>;
};

/** A self-signed certificate for 127.0.0.1, made with openssl. */
function selfSigned(): { key: string; cert: string; caFile: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "azure-entra-"));
  const [key, cert] = [path.join(dir, "key.pem"), path.join(dir, "cert.pem")];
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8"), caFile: cert };
}

/** An https Entra ID stand-in whose tokens `azure` takes. */
export async function startEntraStandIn(azure: AzureFake, lifetimeSeconds = 3600): Promise<EntraFake> {
  const { key, cert, caFile } = selfSigned();
  const port = await freePort();
  const origin = `https://127.0.0.1:${port}`;
  const fake: EntraFake = { authorityHost: origin, caFile, lifetimeSeconds, issued: [], close: async () => undefined };
  const server = createHttpsServer({ key, cert }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const tenant = `${origin}/${ENTRA.tenant}`;
    const reply = (status: number, body: unknown) => (res.writeHead(status, { "content-type": "application/json" }), res.end(JSON.stringify(body)));
    if (req.url?.startsWith(`/${ENTRA.tenant}/v2.0/.well-known/openid-configuration`)) {
      return reply(200, { token_endpoint: `${tenant}/oauth2/v2.0/token`, authorization_endpoint: `${tenant}/oauth2/v2.0/authorize`, issuer: `${tenant}/v2.0`, jwks_uri: `${tenant}/discovery/v2.0/keys`, end_session_endpoint: `${tenant}/oauth2/v2.0/logout` });
    }
    if (req.method !== "POST" || !req.url?.startsWith(`/${ENTRA.tenant}/oauth2/v2.0/token`)) return reply(404, { error: "not_found" });
    const form = new URLSearchParams(Buffer.concat(chunks).toString());
    if (form.get("grant_type") !== "client_credentials" || form.get("scope") !== SCOPE) return reply(400, { error: "invalid_request", error_description: "AADSTS900144: unexpected grant or scope." });
    if (form.get("client_id") !== ENTRA.clientId || form.get("client_secret") !== ENTRA.clientSecret) {
      return reply(401, { error: "invalid_client", error_description: "AADSTS7000215: Invalid client secret provided.", error_codes: [7000215] });
    }
    const token = `entra-token-${fake.issued.length + 1}`;
    const at = Date.now();
    const expiresAt = at + fake.lifetimeSeconds * 1000;
    fake.issued.push({ token, at, expiresAt });
    azure.tokens.set(token, expiresAt);
    reply(200, { token_type: "Bearer", expires_in: fake.lifetimeSeconds, ext_expires_in: fake.lifetimeSeconds, access_token: token });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
