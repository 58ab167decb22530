// A JSON-RPC request to a Streamable HTTP server in one POST, without the SDK's client around it:
// the path of every tool call through the gateway, where the SDK client's request machinery, web
// Request/Response objects and stream parser cost more than the call's own work. The session was
// opened (or resumed) by the SDK's client (connect.ts), whose id and protocol version this sends;
// the outbound guard, the server's credentials and the trace context are those of the SDK's
// requests (upstream-fetch.ts). A server's JSON-RPC error is thrown as the SDK's McpError; an HTTP
// failure as an error whose `code` is the status (as the SDK's StreamableHTTPError), which
// upstream-pool.ts reads (404: the session was forgotten; 401: a new access token).
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { guardedRequest, type OutboundAnswer } from "../../infra/net/outbound-guard";
import { injectTrace, inTrace } from "../../infra/telemetry/tracing";
import type { McpServerEntry } from "../server-def";
import { authHeaders, eventMessages } from "./upstream-fetch";

/** The server answered an HTTP error (`code` is its status). */
class UpstreamHttpError extends Error {
  constructor(
    readonly code: number,
    text: string,
  ) {
    super(`Error POSTing to endpoint (HTTP ${code}): ${text.slice(0, 200)}`);
  }
}

type RpcAnswer = { jsonrpc: "2.0"; id?: string | number | null; result?: unknown; error?: { code: number; message: string; data?: unknown } };

type RpcTarget = { server: McpServerEntry; sessionId: string | null; protocolVersion: string | null };

let nextId = 0;

/** The messages of an answer: its JSON (one, or a batch), or an event stream's `message` events. */
function answerMessages(answer: Pick<OutboundAnswer, "headers" | "body">): unknown[] {
  const type = String(answer.headers["content-type"] ?? "");
  const text = answer.body.toString("utf8");
  if (!type.includes("text/event-stream")) {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  return eventMessages(text);
}

/** The headers every request to `target` carries (names in lower case; the server's own credentials last, as the SDK's client sends them). */
function fixedHeaders(target: RpcTarget, auth: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (target.sessionId) headers["mcp-session-id"] = target.sessionId;
  if (target.protocolVersion) headers["mcp-protocol-version"] = target.protocolVersion;
  for (const [name, value] of Object.entries(auth)) headers[name.toLowerCase()] = value;
  return headers;
}

/** Static headers are built once per target; an OAuth token is asked for on every request (its cache may renew it). */
const fixedOf = new WeakMap<RpcTarget, Record<string, string>>();

async function requestHeaders(target: RpcTarget): Promise<Record<string, string>> {
  let headers = target.server.auth.kind === "oauth" ? undefined : fixedOf.get(target);
  if (!headers) {
    headers = fixedHeaders(target, await authHeaders(target.server));
    if (target.server.auth.kind !== "oauth") fixedOf.set(target, headers);
  }
  if (!inTrace()) return headers;
  const traced = new Headers(headers);
  injectTrace(traced);
  return Object.fromEntries(traced);
}

/** Sends `method` with `params` and resolves with the result the server answered. */
export async function rpcPost(target: RpcTarget, method: string, params: unknown, timeoutMs: number): Promise<unknown> {
  const id = `gw-${++nextId}`;
  const headers = await requestHeaders(target);
  const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
  let answer: OutboundAnswer;
  try {
    answer = await guardedRequest(target.server.url, { method: "POST", headers, body, timeoutMs });
  } catch (err) {
    // Timed out: the server may still be working on it, and is told the request is cancelled, as the SDK's client does.
    if ((err as { code?: unknown }).code === "outbound_timeout")
      void guardedRequest(target.server.url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: String(err) } }),
      timeoutMs: 5000,
    }).catch(() => undefined);
    throw err;
  }
  if (answer.status >= 300) throw new UpstreamHttpError(answer.status, answer.body.toString("utf8"));
  let reply: RpcAnswer | undefined;
  try {
    reply = (answer.status === 202 ? [] : answerMessages(answer)).find((m): m is RpcAnswer => !!m && typeof m === "object" && (m as RpcAnswer).id === id);
  } catch {
    throw new Error("the server's answer is not JSON-RPC");
  }
  if (!reply || (reply.result === undefined && !reply.error)) throw new Error("the server answered without a response to the request");
  if (reply.error) throw McpError.fromError(reply.error.code, reply.error.message, reply.error.data);
  if (!reply.result || typeof reply.result !== "object") throw new Error("the server's result is not an object");
  return reply.result;
}
