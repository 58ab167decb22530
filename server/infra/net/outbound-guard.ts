// The one way the gateway fetches a URL that a tenant or a caller chose (a trusted issuer's JWKS
// today). The URL must pass outbound-policy.ts; the host name is resolved once, inside the
// connection's own lookup, every address it resolves to is checked, and the socket connects to
// those checked addresses, so a name cannot pass the check and then rebind to 127.0.0.1 before
// the connect. Redirects are never followed: a 3xx answer is refused (its target was never
// checked). The whole exchange has a time limit and the answer a size limit; the body is read
// here and handed back as a plain Response.
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { Agent, fetch as undiciFetch, type Dispatcher } from "undici";
import { GatewayError } from "../../kernel/errors";
import { logFor } from "../telemetry/log";
import { addressRefusal, describeKind, normalHost } from "./address-policy";
import { envPolicy, urlRefusal, type OutboundPolicy } from "./outbound-policy";
import { CutOff, wholeAnswer, type WholeAnswer } from "./whole-answer";

/** Resolves a host name to all its addresses (node's dns.lookup with all: true, unless a test injects its own). */
export type Resolve = (host: string) => Promise<{ address: string; family: number }[]>;

export type OutboundInit = {
  method?: string;
  headers?: HeadersInit;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** The time limit of this fetch, instead of the policy's (a tool call may take longer). */
  timeoutMs?: number;
  /**
   * The answer's body is handed back unread, as it arrives (an event stream that stays open): the
   * time limit then ends with the headers, and the size limit does not apply.
   */
  stream?: boolean;
};

/** An outbound fetch that did not happen or was cut; `reason` says why, without resolved addresses. */
export class OutboundError extends GatewayError {
  constructor(
    status: number,
    code: "outbound_refused" | "outbound_timeout" | "outbound_too_large" | "outbound_unreachable",
    readonly reason: string,
    target: string,
    cause?: unknown,
  ) {
    super({ status, code, message: `The request to ${target} was not completed: ${reason}.`, cause });
  }
}

/** Raised inside the connection's lookup; the fetch turns it into an OutboundError. */
class AddressRefused extends Error {}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** URLs whose check a guard keeps (all are forgotten when there are more). */
const CHECKED_URLS = 1024;
const NULL_BODY = new Set([101, 204, 205, 304]);

const resolveWithDns: Resolve = (host) => dnsLookup(host, { all: true });

function guardedLookup(policy: OutboundPolicy, resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    const host = normalHost(hostname);
    resolve(host)
      .then((found) => {
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (!wanted.length) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
        if (!policy.allow.hosts.has(host)) {
          // One refused address refuses the name: which address a connection ends up on is not ours to pick.
          for (const { address } of wanted) {
            const kind = addressRefusal(address, policy.allow);
            if (kind) {
              logFor("outbound").warn({ host, address, kind }, "outbound request refused: the host resolves to a non-public address");
              throw new AddressRefused(`its host resolves to ${describeKind(kind)}`);
            }
          }
        }
        return wanted;
      })
      .then(
        // The socket connects to exactly these (checked) addresses; nothing resolves the name again.
        (wanted) => (options.all ? callback(null, wanted) : callback(null, wanted[0]!.address, wanted[0]!.family)),
        (err: NodeJS.ErrnoException) => callback(err, ""),
      );
  };
}

function causeChain(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

export type OutboundGuard = {
  fetch: (input: string | URL, init?: OutboundInit) => Promise<Response>;
  request: (input: string | URL, init?: OutboundInit) => Promise<OutboundAnswer>;
  close: () => Promise<void>;
};

export function createOutboundGuard(policy: OutboundPolicy = envPolicy, resolve: Resolve = resolveWithDns): OutboundGuard {
  const agent = new Agent({ connect: { lookup: guardedLookup(policy, resolve) } });

  function failure(url: URL, err: unknown, timeout: AbortSignal, callerSignal: AbortSignal | undefined, ms: number): unknown {
    if (err instanceof OutboundError) return err;
    if (callerSignal?.aborted) return callerSignal.reason;
    if (timeout.aborted) return new OutboundError(504, "outbound_timeout", `it did not complete within ${ms} ms`, url.origin, err);
    const chain = causeChain(err);
    const refused = chain.find((e) => e instanceof AddressRefused);
    if (refused) return new OutboundError(502, "outbound_refused", refused.message, url.origin);
    const code = chain.map((e) => (e as { code?: unknown }).code).find((c) => typeof c === "string");
    return new OutboundError(502, "outbound_unreachable", `it could not be reached${code ? ` (${code})` : ""}`, url.origin, err);
  }

  async function readCapped(url: URL, body: ReadableStream<Uint8Array> | null): Promise<Uint8Array<ArrayBuffer>> {
    const chunks: Uint8Array[] = [];
    let total = 0;
    if (!body) return new Uint8Array(0);
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > policy.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new OutboundError(502, "outbound_too_large", `the answer is larger than ${policy.maxBytes} bytes`, url.origin);
      }
      chunks.push(value);
    }
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    return bytes;
  }

  /** The URL checked by the policy, and the fetch's time limit (`timer` aborts `timeout`; `signal` is the caller's too). */
  // The URL check's answer for the URLs fetched again and again (a tool server's, a node's): it
  // depends on the URL and the policy alone. The addresses a name resolves to are checked on
  // every connection all the same (guardedLookup).
  const checkedUrls = new Map<string, { url: URL; refusal: string | null }>();

  function checkedUrl(input: string | URL): { url: URL; refusal: string | null } {
    const known = typeof input === "string" ? checkedUrls.get(input) : undefined;
    if (known) return known;
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new OutboundError(502, "outbound_refused", "it is not a valid URL", "the outbound URL");
    }
    const checked = { url, refusal: urlRefusal(url, policy) };
    if (typeof input === "string") {
      if (checkedUrls.size >= CHECKED_URLS) checkedUrls.clear();
      checkedUrls.set(input, checked);
    }
    return checked;
  }

  function start(input: string | URL, init: OutboundInit): { url: URL; timer: NodeJS.Timeout; timeout: AbortSignal; signal: AbortSignal } {
    const { url, refusal } = checkedUrl(input);
    if (refusal) throw new OutboundError(502, "outbound_refused", refusal, url.origin);
    const limit = new AbortController();
    const timer = setTimeout(() => limit.abort(), init.timeoutMs ?? policy.timeoutMs);
    const timeout = limit.signal;
    return { url, timer, timeout, signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout };
  }

  async function guardedFetch(input: string | URL, init: OutboundInit = {}): Promise<Response> {
    const { url, timer, timeout, signal } = start(input, init);
    try {
      const res = await undiciFetch(url, {
        method: init.method ?? "GET",
        headers: [...new Headers(init.headers)],
        body: init.body,
        signal,
        redirect: "manual",
        dispatcher: agent,
      });
      if (REDIRECTS.has(res.status)) {
        await res.body?.cancel().catch(() => undefined);
        throw new OutboundError(502, "outbound_refused", `it answered with a redirect (${res.status}), which is not followed`, url.origin);
      }
      const declared = Number(res.headers.get("content-length") ?? 0);
      if (declared > policy.maxBytes) {
        await res.body?.cancel().catch(() => undefined);
        throw new OutboundError(502, "outbound_too_large", `the answer is larger than ${policy.maxBytes} bytes`, url.origin);
      }
      if (init.stream) {
        clearTimeout(timer);
        return new Response(NULL_BODY.has(res.status) ? null : (res.body as ReadableStream<Uint8Array> | null), { status: res.status, statusText: res.statusText, headers: [...res.headers] });
      }
      const bytes = await readCapped(url, res.body as ReadableStream<Uint8Array> | null);
      return new Response(NULL_BODY.has(res.status) ? null : bytes, { status: res.status, statusText: res.statusText, headers: [...res.headers] });
    } catch (err) {
      throw failure(url, err, timeout, init.signal, init.timeoutMs ?? policy.timeoutMs);
    } finally {
      if (!init.stream) clearTimeout(timer);
    }
  }

  /**
   * The same checks as `guardedFetch` for a request whose whole answer is wanted at once, without
   * fetch's web streams and objects on the way (undici's dispatch on the same agent, whole-answer.ts):
   * for calls made on every request of a client, such as an MCP tool call.
   */
  async function guardedRequest(input: string | URL, init: OutboundInit = {}): Promise<OutboundAnswer> {
    const { url, timer, timeout, signal } = start(input, init);
    try {
      const request = {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: (init.method ?? "GET") as Dispatcher.HttpMethod,
        headers: Object.fromEntries(new Headers(init.headers)),
        body: init.body,
      };
      return await wholeAnswer(agent, request, signal, { maxBytes: policy.maxBytes, refuse: (status) => REDIRECTS.has(status) }).catch((err: unknown) => {
        if (!(err instanceof CutOff)) throw err;
        if (err.why === "refused") throw new OutboundError(502, "outbound_refused", `it answered with a redirect (${err.status}), which is not followed`, url.origin);
        throw err.why === "too large" ? new OutboundError(502, "outbound_too_large", `the answer is larger than ${policy.maxBytes} bytes`, url.origin) : err.cause;
      });
    } catch (err) {
      throw failure(url, err, timeout, init.signal, init.timeoutMs ?? policy.timeoutMs);
    } finally {
      clearTimeout(timer);
    }
  }

  return { fetch: guardedFetch, request: guardedRequest, close: () => agent.close() };
}

/** A whole answer of `guardedRequest`. */
export type OutboundAnswer = WholeAnswer;

let shared: OutboundGuard | undefined;

/**
 * Fetches a tenant- or caller-chosen URL under the operator's policy (OUTBOUND_*). Throws an
 * OutboundError (502 outbound_refused / outbound_unreachable / outbound_too_large, 504
 * outbound_timeout) rather than reaching an address it may not; a 3xx answer is refused.
 */
export function guardedFetch(input: string | URL, init?: OutboundInit): Promise<Response> {
  return (shared ??= createOutboundGuard()).fetch(input, init);
}

/** `guardedFetch`'s checks, the whole answer as bytes (no web streams): for a call made on every request. */
export function guardedRequest(input: string | URL, init?: OutboundInit): Promise<OutboundAnswer> {
  return (shared ??= createOutboundGuard()).request(input, init);
}
