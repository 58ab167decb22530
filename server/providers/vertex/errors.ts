// Vertex's refusals in the gateway's terms, for Gemini's error body (`{error: {code, message,
// status, details}}`) and Anthropic's (`{type: "error", error: {type, message}}`) alike:
// - a prompt longer than the model's context is the 400 `context_length_exceeded` a route's
//   fallback moves on from (route-stage.ts) to a model with a larger context;
// - RESOURCE_EXHAUSTED is a 429 whose Retry-After is Vertex's header, else its RetryInfo delay,
//   else a few seconds (Vertex's quota errors often say neither; the route cools the target down);
// - 401/403 (a token refused, a permission missing) say what the operator must fix, never which
//   token or key it was: the router answers the client a 502 and tries another node.
import { UpstreamFailure } from "../upstream-failure";

type ErrorBody = { error?: { message?: unknown; status?: unknown; details?: { "@type"?: string; retryDelay?: string }[] } } | null;

const DEFAULT_RETRY_AFTER = "5";

const CONTEXT_OVERFLOW = /exceeds the maximum number of tokens|prompt is too long|input token count .* exceeds|context (length|window)/i;

function messageOf(body: ErrorBody): string {
  return typeof body?.error?.message === "string" ? body.error.message : "";
}

/** Vertex's `RetryInfo.retryDelay` ("30s", "1.5s") as whole seconds. */
function retryDelayOf(body: ErrorBody): string | undefined {
  const delay = body?.error?.details?.find((d) => d["@type"]?.endsWith("google.rpc.RetryInfo"))?.retryDelay;
  const seconds = delay ? Number.parseFloat(delay) : NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? String(Math.ceil(seconds)) : undefined;
}

function contextOverflow(message: string): UpstreamFailure {
  const body = { error: { message, type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } };
  return new UpstreamFailure("status", message, 400, body);
}

function refusedAccess(failure: UpstreamFailure, body: ErrorBody): UpstreamFailure {
  const status = typeof body?.error?.status === "string" ? ` ${body.error.status}` : "";
  const what =
    failure.status === 401
      ? "Vertex AI did not accept the node's access token: check its service account key (or the workload identity it runs as)"
      : "Vertex AI refused the node's service account: grant it roles/aiplatform.user (or aiplatform.endpoints.predict) on the node's project, and check the model is enabled in its location";
  return new UpstreamFailure("status", `${what} (HTTP ${failure.status}${status})`, failure.status, null, failure.retryAfter);
}

/** A failed Vertex call as the router should see it. */
export function vertexFailure(err: unknown): unknown {
  if (!(err instanceof UpstreamFailure) || err.kind !== "status") return err;
  const body = err.body as ErrorBody;
  if (err.status === 400 && CONTEXT_OVERFLOW.test(messageOf(body))) return contextOverflow(messageOf(body));
  if (err.status === 429 && !err.retryAfter) return new UpstreamFailure("status", err.message, 429, err.body, retryDelayOf(body) ?? DEFAULT_RETRY_AFTER);
  if (err.status === 401 || err.status === 403) return refusedAccess(err, body);
  return err;
}

/** Runs a Vertex call, its failure mapped. */
export async function onVertex<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw vertexFailure(err);
  }
}
