// The headers of a /v1 answer. Every answer, whatever produced it (success, error, stream,
// download), carries CORS for browser apps, `openai-processing-ms`, and `x-should-retry: false`
// where a retry cannot help, which the official SDKs obey instead of retrying (a 501 would
// otherwise cost 3 requests). And what a call's typed outcome and a refusal's detail stand for
// (below): the caller's rate limits (OpenAI's x-ratelimit-* headers), an x402 payment
// (PAYMENT-RESPONSE, or for a stream, whose headers went out first, a last `payment_response`
// event after its end), phase durations (Server-Timing), Retry-After, PAYMENT-REQUIRED, a 416's
// Content-Range and a 405's Allow.
import { env } from "../infra/env";
import type { CallOutcome, RateWindowState } from "../kernel/call-outcome";
import type { ErrorDetail } from "../kernel/errors";
import type { IncomingCall, Reply, ReplyHeaders } from "./call";

/** Headers a browser script may read on a cross-origin answer. */
const EXPOSED = [
  "x-request-id",
  "openai-processing-ms",
  "x-should-retry",
  "retry-after",
  "x-ratelimit-limit-requests",
  "x-ratelimit-remaining-requests",
  "x-ratelimit-reset-requests",
  "x-ratelimit-limit-tokens",
  "x-ratelimit-remaining-tokens",
  "x-ratelimit-reset-tokens",
  "content-range",
  "accept-ranges",
  "payment-required",
  "payment-response",
  "server-timing",
  "x-gateway-cache",
  "x-gateway-route",
  "x-gateway-target",
  "x-gateway-attempts",
  "mcp-session-id",
].join(", ");

/** Request headers a preflight may ask for when it does not say (OpenAI's SDKs send these). */
const DEFAULT_ALLOWED_HEADERS = "authorization, content-type, openai-organization, openai-project, openai-beta, x-request-id, payment-signature, mcp-session-id, mcp-protocol-version, last-event-id";

let allowList: Set<string> | null | undefined;
/** null: any origin. */
function allowedOrigins(): Set<string> | null {
  if (allowList === undefined) {
    const raw = env.CORS_ORIGINS.trim();
    allowList = raw === "*" ? null : new Set(raw.split(",").map((o) => o.trim().replace(/\/+$/, "")).filter(Boolean));
  }
  return allowList;
}

/** The CORS headers for a request from `origin`; none when that origin is not allowed. */
function corsHeaders(origin: string | undefined): ReplyHeaders {
  const allowed = allowedOrigins();
  if (allowed === null) return { "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSED };
  if (!origin || !allowed.has(origin)) return { vary: "Origin" };
  return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED, vary: "Origin" };
}

/** Whether a call is a CORS preflight (an OPTIONS a browser sends before the real request). */
export function isPreflight(call: IncomingCall): boolean {
  return call.method === "OPTIONS" && !!call.header("access-control-request-method");
}

/** The answer to a preflight: the methods of the path (all /v1 methods for an unknown one), the headers asked for. */
export function preflightReply(call: IncomingCall, methods: string[], requestId: string): Reply {
  return {
    kind: "empty",
    status: 204,
    headers: {
      "x-request-id": requestId,
      "access-control-allow-methods": methods.join(", "),
      "access-control-allow-headers": call.header("access-control-request-headers") ?? DEFAULT_ALLOWED_HEADERS,
      "access-control-max-age": "600",
    },
  };
}

/** 4xx that the same request will get again (not 408, 409 or 429), and 501: retrying cannot help. */
const hopeless = (status: number) => (status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429) || status === 501;

/** Adds the headers every answer carries. `startedAt` is performance.now() when the request came in. */
export function finishHeaders(reply: Reply, call: IncomingCall, startedAt: number): void {
  Object.assign(reply.headers, corsHeaders(call.header("origin")));
  reply.headers["openai-processing-ms"] = String(Math.round(performance.now() - startedAt));
  const status = reply.kind === "json" || reply.kind === "empty" ? reply.status : 200;
  if (hopeless(status)) reply.headers["x-should-retry"] = "false";
}

type X402Http = typeof import("@x402/core/http");
let x402Http: X402Http | undefined;

/**
 * Loads x402's header encoding, which an outcome with a payment or a refusal asking for one
 * needs (x402 is loaded by then: its admission made them); nothing else loads x402.
 */
export async function loadPaymentEncoding(outcome: CallOutcome | null, detail: ErrorDetail | null): Promise<void> {
  if (!x402Http && (outcome?.payment || detail?.paymentRequired)) x402Http = await import("@x402/core/http");
}

function encoding(): X402Http {
  if (!x402Http) throw new Error("x402 header encoding used before loadPaymentEncoding");
  return x402Http;
}

/** OpenAI's duration format: `20ms`, `6s`, `1m0s`. */
function formatReset(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

function windowHeaders(headers: ReplyHeaders, kind: "requests" | "tokens", w: RateWindowState): void {
  headers[`x-ratelimit-limit-${kind}`] = String(w.limit);
  headers[`x-ratelimit-remaining-${kind}`] = String(w.remaining);
  headers[`x-ratelimit-reset-${kind}`] = formatReset(w.resetMs);
}

/** Adds the headers of a call's outcome to `headers`. */
export function addOutcomeHeaders(outcome: CallOutcome, headers: ReplyHeaders): void {
  const limits = outcome.rateLimits;
  if (limits?.requests) windowHeaders(headers, "requests", limits.requests);
  if (limits?.tokens) windowHeaders(headers, "tokens", limits.tokens);
  if (outcome.timings?.length) headers["server-timing"] = outcome.timings.map((t) => `${t.phase};dur=${t.ms.toFixed(1)}`).join(", ");
  if (outcome.payment) headers["payment-response"] = encoding().encodePaymentResponseHeader(outcome.payment);
  if (outcome.cache) headers["x-gateway-cache"] = outcome.cache;
  const routing = outcome.routing;
  if (routing) {
    headers["x-gateway-route"] = routing.route;
    headers["x-gateway-attempts"] = String(routing.attempts.length);
    if (routing.target) headers["x-gateway-target"] = routing.target.node ? `${routing.target.model}@${routing.target.node}` : routing.target.model;
  }
}

/** The frames a stream ends with after its last event: the x402 payment settled when it was done. */
export function outcomeFrames(outcome: CallOutcome | undefined): string {
  return outcome?.payment ? `event: payment_response\ndata: ${JSON.stringify(outcome.payment)}\n\n` : "";
}

/** The headers a refusal's detail stands for. */
export function detailHeaders(detail: ErrorDetail): ReplyHeaders {
  const headers: ReplyHeaders = {};
  if (detail.retryAfter !== undefined) headers["retry-after"] = String(detail.retryAfter);
  if (detail.paymentRequired) headers["payment-required"] = encoding().encodePaymentRequiredHeader(detail.paymentRequired);
  if (detail.contentSize !== undefined) headers["content-range"] = `bytes */${detail.contentSize}`;
  if (detail.allow) headers.allow = detail.allow.join(", ");
  return headers;
}
