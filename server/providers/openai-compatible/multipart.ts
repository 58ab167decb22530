// multipart/form-data calls to OpenAI-compatible nodes (audio transcriptions and translations,
// image edits and variations): the same timeouts and failure classes as JSON calls.
import { FormData, Pool, type Dispatcher } from "undici";
import { env } from "../../env";
import { classifyUpstreamError, UpstreamFailure, type UpstreamResponse, type UpstreamTarget } from "./http";
import { authHeaders } from "./list-models";

export { FormData };

const pools = new Map<string, Pool>();

function poolFor(origin: string): Pool {
  let pool = pools.get(origin);
  if (!pool) {
    pool = new Pool(origin, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000, connect: { timeout: env.UPSTREAM_CONNECT_TIMEOUT_MS } });
    pools.set(origin, pool);
  }
  return pool;
}

/** Reads a node's error answer into an UpstreamFailure (its JSON error body when it sent one). */
export async function failureOf(res: Dispatcher.ResponseData): Promise<UpstreamFailure> {
  const text = await res.body.text().catch(() => "");
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep null
  }
  const retryAfter = res.headers["retry-after"];
  return new UpstreamFailure("status", `the node answered HTTP ${res.statusCode}`, res.statusCode, parsed, typeof retryAfter === "string" ? retryAfter : undefined);
}

/** POSTs a multipart form; resolves once the node's status and headers arrived (its first byte). */
export async function postMultipart(target: UpstreamTarget, path: string, form: FormData, signal?: AbortSignal): Promise<UpstreamResponse> {
  const url = new URL(`${target.baseUrl}${path}`);
  let res: Dispatcher.ResponseData;
  try {
    res = await poolFor(url.origin).request({
      method: "POST",
      path: url.pathname + url.search,
      headers: { accept: "application/json, text/plain", ...authHeaders(target.apiKey) },
      body: form,
      signal,
      headersTimeout: env.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      bodyTimeout: env.UPSTREAM_IDLE_TIMEOUT_MS,
    });
  } catch (err) {
    throw classifyUpstreamError(err);
  }
  if (res.statusCode >= 400) throw await failureOf(res);
  return { status: res.statusCode, headers: res.headers, body: res.body };
}
