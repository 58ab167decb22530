// Headers every /v1 answer carries, whatever produced it (success, error, stream, download):
// CORS for browser apps, `openai-processing-ms`, and `x-should-retry: false` where a retry cannot
// help, which the official SDKs obey instead of retrying (a 501 would otherwise cost 3 requests).
import { env } from "../infra/env";
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
].join(", ");

/** Request headers a preflight may ask for when it does not say (OpenAI's SDKs send these). */
const DEFAULT_ALLOWED_HEADERS = "authorization, content-type, openai-organization, openai-project, openai-beta, x-request-id, payment-signature";

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
