// The fetch the MCP SDK's client transports use to reach a registered server: every request
// through the outbound guard (its policy, checked addresses, no redirects), with the server's
// credentials added. Streamable HTTP's optional GET stream (server-initiated messages, which the
// gateway does not relay) is answered 405 here without a request, as a server without one would;
// the older HTTP+SSE transport's GET stream is the channel its answers come on, read as it arrives.
import { createParser } from "eventsource-parser";
import { env } from "../../infra/env";
import { guardedFetch, guardedRequest, type OutboundAnswer } from "../../infra/net/outbound-guard";
import { injectTrace } from "../../infra/telemetry/tracing";
import type { McpServerEntry } from "../server-def";
import { accessToken } from "./oauth-token";

export type TransportFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The headers that authenticate the gateway to `server`. */
export async function authHeaders(server: Pick<McpServerEntry, "id" | "auth">): Promise<Record<string, string>> {
  const auth = server.auth;
  if (auth.kind === "header") return auth.headers;
  if (auth.kind === "oauth") return { authorization: `Bearer ${await accessToken(server.id, auth)}` };
  return {};
}

function bodyOf(body: RequestInit["body"]): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  throw new Error("an MCP request body is JSON text");
}

export function upstreamFetch(server: McpServerEntry): TransportFetch {
  return async (url, init = {}) => {
    const method = init.method ?? "GET";
    const sse = server.transport === "sse";
    if (method === "GET" && !sse) return new Response(null, { status: 405 });
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(await authHeaders(server))) headers.set(name, value);
    injectTrace(headers);
    const options = { method, headers, body: bodyOf(init.body), signal: init.signal ?? undefined, timeoutMs: env.MCP_TOOL_TIMEOUT_MS };
    // HTTP+SSE's GET is its answers' channel, read as it arrives; everything else is read whole.
    if (sse && method === "GET") return guardedFetch(url, { ...options, stream: true });
    return responseOf(await guardedRequest(url, options));
  };
}

const NO_BODY = new Set([101, 204, 205, 304]);

/** A whole answer as the Response the SDK's transports read; an event stream's messages as JSON (below). */
function responseOf(answer: OutboundAnswer): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || name === "content-length" || name === "transfer-encoding") continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  if (NO_BODY.has(answer.status)) return new Response(null, { status: answer.status, headers });
  let body = answer.body.toString("utf8");
  if (headers.get("content-type")?.includes("text/event-stream")) {
    body = eventsAsJson(body);
    headers.set("content-type", "application/json");
  }
  return new Response(body, { status: answer.status, headers });
}

/**
 * A Streamable HTTP server may answer a POST with an event stream that ends with the answer; read
 * whole already, its messages are handed to the SDK's client as JSON (one, or a batch), which it
 * reads without running a stream parser per call.
 */
function eventsAsJson(text: string): string {
  const messages = eventMessages(text);
  return JSON.stringify(messages.length === 1 ? messages[0] : messages);
}

/** The JSON messages of an event stream read whole (its `message` events). */
export function eventMessages(text: string): unknown[] {
  const messages: unknown[] = [];
  const parser = createParser({ onEvent: (e) => void ((e.event ?? "message") === "message" && e.data && messages.push(JSON.parse(e.data))) });
  parser.feed(text);
  parser.reset({ consume: true });
  return messages;
}
