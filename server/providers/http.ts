// HTTP to nodes, whatever their wire format: one keep-alive undici pool per node origin, with
// connect, first-byte and idle timeouts, and the wire format's auth headers. Failures are
// classified (an UpstreamFailure) so the router knows what may be retried.
import type { IncomingHttpHeaders } from "node:http";
import { Pool, type Dispatcher } from "undici";
import { env } from "../infra/env";
import { clientSpan, inTrace } from "../infra/telemetry/tracing";
import type { CloudSettings, Signer } from "./cloud";
import { CutOff, wholeAnswer } from "../infra/net/whole-answer";
import { UpstreamFailure } from "./upstream-failure";
import { wireHeaders, type Wire } from "./wire";

/**
 * A node as a call sees it: where it is, the gateway's key for it, and its wire format (OpenAI's
 * when absent); `headers`, when given, are that format's auth headers already made (the node
 * registry makes them once per node, not once per call).
 */
export type UpstreamTarget = {
  baseUrl: string;
  apiKey: string | null;
  wire?: Wire;
  headers?: Record<string, string>;
  /** A route's target's own timeout to the first byte (ms), and a signal aborted when its whole-attempt timeout passes. */
  firstByteTimeoutMs?: number;
  signal?: AbortSignal;
  /** A cloud node's settings (region, project, api-version...), and its per-request signer (a token, a SigV4 signature). */
  cloud?: CloudSettings;
  sign?: Signer;
};
export type UpstreamResponse = { status: number; headers: Record<string, string | string[] | undefined>; body: Dispatcher.ResponseData["body"] };

const pools = new Map<string, Pool>();

function poolFor(origin: string): Pool {
  let pool = pools.get(origin);
  if (!pool) {
    pool = new Pool(origin, {
      connections: 256,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: env.UPSTREAM_CONNECT_TIMEOUT_MS },
    });
    pools.set(origin, pool);
  }
  return pool;
}

function classify(err: unknown): UpstreamFailure {
  const code = (err as { code?: string }).code ?? "";
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") return new UpstreamFailure("timeout", "the node timed out");
  if (code === "UND_ERR_CONNECT_TIMEOUT") return new UpstreamFailure("timeout", "connecting to the node timed out");
  return new UpstreamFailure("connect", "could not reach the node");
}

type Method = "GET" | "POST" | "DELETE";

/** Sends a request; resolves once the node's status and headers arrived (its first byte). */
export async function request(
  target: UpstreamTarget,
  method: Method,
  path: string,
  options: RequestOptions = {},
): Promise<UpstreamResponse> {
  const url = new URL(`${target.baseUrl}${path}`);
  if (inTrace()) return traced(url, method, options, target);
  return send(url, method, options, target);
}

/** The node call as a span of the request's trace, ended with the node's last byte. */
async function traced(url: URL, method: Method, options: RequestOptions, target: UpstreamTarget): Promise<UpstreamResponse> {
  const span = clientSpan(`${method} ${url.pathname}`, {
    "http.request.method": method,
    "server.address": url.hostname,
    "server.port": Number(url.port) || (url.protocol === "https:" ? 443 : 80),
    "url.full": `${url.origin}${url.pathname}`,
  });
  try {
    const res = await send(url, method, { ...options, headers: { ...options.headers, ...span.headers } }, target);
    res.body.once("end", () => span.end()).once("close", () => span.end()).once("error", (err) => span.end(err));
    return res;
  } catch (err) {
    span.end(err);
    throw err;
  }
}

type RequestOptions = { body?: Dispatcher.DispatchOptions["body"]; headers?: Record<string, string>; signal?: AbortSignal };

/** The request as undici takes it, and the signal that aborts it (the caller's, the route attempt's, or both). */
async function dispatchOptions(url: URL, method: Method, options: RequestOptions, target: UpstreamTarget) {
  // A route's attempt may bring its own first-byte timeout, and a signal for its whole-attempt timeout.
  const signal = target.signal ? (options.signal ? AbortSignal.any([options.signal, target.signal]) : target.signal) : options.signal;
  let headers = { ...options.headers, ...(target.headers ?? wireHeaders(target.wire, target.apiKey)) };
  if (target.sign) headers = { ...headers, ...(await signed(target.sign, method, url, headers, options.body)) };
  return {
    signal,
    request: {
      method,
      path: url.pathname + url.search,
      headers,
      body: options.body,
      headersTimeout: target.firstByteTimeoutMs ?? env.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      bodyTimeout: env.UPSTREAM_IDLE_TIMEOUT_MS,
    } satisfies Dispatcher.DispatchOptions,
  };
}

/** A failure before the node's status arrived: the route attempt's timeout, or what undici says. */
function beforeAnswer(err: unknown, options: RequestOptions, target: UpstreamTarget): UpstreamFailure {
  if (target.signal?.aborted && !options.signal?.aborted) return new UpstreamFailure("timeout", "the route's timeout for this target passed");
  return classify(err);
}

async function send(url: URL, method: Method, options: RequestOptions, target: UpstreamTarget): Promise<UpstreamResponse> {
  const { signal, request } = await dispatchOptions(url, method, options, target);
  let res: Dispatcher.ResponseData;
  try {
    res = await poolFor(url.origin).request({ ...request, signal });
  } catch (err) {
    throw beforeAnswer(err, options, target);
  }
  if (res.statusCode >= 400) throw await failureOf(res);
  return { status: res.statusCode, headers: res.headers, body: res.body };
}

/**
 * A cloud node's per-request headers. Credentials that cannot be had (a token endpoint that
 * refuses, no AWS credentials anywhere in the chain) are the operator's to fix: a 502 that says
 * so, which another node may still do better than.
 */
async function signed(sign: Signer, method: Method, url: URL, headers: Record<string, string>, body: RequestOptions["body"]): Promise<Record<string, string>> {
  try {
    return await sign({ method, url, headers, body: typeof body === "string" ? body : undefined });
  } catch (err) {
    const reason = err instanceof UpstreamFailure ? err.message : `the node's credentials could not be used: ${(err as Error).message}`;
    throw new UpstreamFailure("credentials", reason, 502);
  }
}

/** POSTs a body; resolves once the node's status and headers arrived (its first byte). */
export function post(target: UpstreamTarget, path: string, body: Dispatcher.DispatchOptions["body"], headers: Record<string, string>, signal?: AbortSignal): Promise<UpstreamResponse> {
  return request(target, "POST", path, { body, headers, signal });
}

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** POSTs a JSON body (chat, responses, embeddings, speech, image generations). */
export function postJson(target: UpstreamTarget, path: string, body: string, signal?: AbortSignal): Promise<UpstreamResponse> {
  return post(target, path, body, JSON_HEADERS, signal);
}

/**
 * POSTs a JSON body and reads the node's JSON answer. An unreadable one is a protocol failure:
 * nothing reached the client yet, so the call may still go to another node.
 */
export async function postForJson<T = Record<string, unknown>>(target: UpstreamTarget, path: string, body: unknown, what: string, signal?: AbortSignal): Promise<T> {
  const json = JSON.stringify(body);
  // Traced, the node call is a span ended with the body's last byte (request() above): read as a stream.
  const text = inTrace()
    ? await (await postJson(target, path, json, signal)).body.text().catch((err: unknown) => {
        throw signal?.aborted ? err : unreadable(what);
      })
    : await postWhole(target, path, json, signal).catch((err: unknown) => {
        throw err instanceof CutOff ? (signal?.aborted ? err.cause : unreadable(what)) : err;
      });
  try {
    return JSON.parse(text) as T;
  } catch {
    throw unreadable(what);
  }
}

const unreadable = (what: string) => new UpstreamFailure("protocol", `the node's ${what} could not be read`, 502);

/**
 * POSTs a JSON body and reads the node's whole answer as text (infra/net/whole-answer.ts: no
 * body stream). Failures are those of `send`; a body cut off after the status is a CutOff
 * (postForJson: the node's answer could not be read).
 */
async function postWhole(target: UpstreamTarget, path: string, body: string, callerSignal?: AbortSignal): Promise<string> {
  const url = new URL(`${target.baseUrl}${path}`);
  const options: RequestOptions = { body, headers: JSON_HEADERS, signal: callerSignal };
  const { signal, request } = await dispatchOptions(url, "POST", options, target);
  const answer = await wholeAnswer(poolFor(url.origin), request, signal).catch((err: unknown) => {
    if (!(err instanceof CutOff)) throw beforeAnswer(err, options, target);
    throw err.status >= 400 ? failureFrom(err.status, err.headers, "") : err;
  });
  const text = answer.body.toString("utf8");
  if (answer.status >= 400) throw failureFrom(answer.status, answer.headers, text);
  return text;
}

/** Reads a node's error answer into an UpstreamFailure (its JSON error body when it sent one). */
export async function failureOf(res: Dispatcher.ResponseData): Promise<UpstreamFailure> {
  return failureFrom(res.statusCode, res.headers, await res.body.text().catch(() => ""));
}

function failureFrom(status: number, headers: IncomingHttpHeaders, text: string): UpstreamFailure {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep null
  }
  return new UpstreamFailure("status", `the node answered HTTP ${status}`, status, parsed, retryAfterOf(headers));
}

/** A node's Retry-After in seconds: its header, or Azure's `retry-after-ms` rounded up. */
function retryAfterOf(headers: IncomingHttpHeaders): string | undefined {
  const seconds = headers["retry-after"];
  if (typeof seconds === "string") return seconds;
  const ms = Number(headers["retry-after-ms"]);
  return typeof headers["retry-after-ms"] === "string" && Number.isFinite(ms) && ms >= 0 ? String(Math.ceil(ms / 1000)) : undefined;
}

