// /mcp: the Model Context Protocol over Streamable HTTP, for both hosts (the node:http data plane
// and the Next.js route handler). The credential is checked as on /v1 (a workspace API key or a
// session token as Bearer; a restricted key needs the `mcp` group). Streamable HTTP's checks (Accept,
// Content-Type, MCP-Protocol-Version, the JSON-RPC shape) are made here as the SDK's server
// transport makes them, and each message is answered by the process's one SDK `Server`
// (mcp/endpoint/local-transport.ts), with JSON; the session around it is the gateway's own, kept in
// PostgreSQL (mcp/endpoint/sessions.ts): `initialize` opens one and answers its id in
// Mcp-Session-Id, every later request must carry it (400 without, 404 for one that ended or is
// another credential's), DELETE ends it. GET (a stream of server-initiated messages) is 405: the
// gateway sends none. Refusals are JSON-RPC errors with the HTTP status of the same refusal on /v1.
import { ErrorCode, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type JSONRPCNotification, type JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { env } from "../../infra/env";
import { GatewayError } from "../../kernel/errors";
import { newRequestId } from "../../kernel/ids";
import type { Principal } from "../../identity/principal";
import { answerRequest, takeNotification } from "../../mcp/endpoint/local-transport";
import { RPC_CODES, toMcpError } from "../../mcp/endpoint/rpc-errors";
import { isJsonRpcMessage } from "../../mcp/rpc-shapes";
import { endSession, openSession, sessionFor, upstreamStore, type McpSessionRow } from "../../mcp/endpoint/sessions";
import type { ToolCaller } from "../../mcp/calls/tool-call";
import { authenticate, authenticateBearer } from "../../pipeline/authenticate";
import type { IncomingCall, Reply } from "../call";
import { credentialOf } from "../call-input";
import { finishHeaders, isPreflight, preflightReply } from "../answer-headers";
import { parseJson, readBodyBytes } from "../request-body";
import { MCP_PATH } from "./mcp-path";

const METHODS = ["POST", "DELETE", "OPTIONS"];

function rpcError(status: number, code: number, message: string, data?: unknown, headers: Record<string, string> = {}): Reply {
  const body = JSON.stringify({ jsonrpc: "2.0", error: data === undefined ? { code, message } : { code, message, data }, id: null });
  return { kind: "json", status, headers: { "content-type": "application/json", ...headers }, body };
}

function refusal(err: unknown): Reply {
  const e = toMcpError(err);
  const status = err instanceof GatewayError ? err.status : 500;
  const headers: Record<string, string> = status === 401 ? { "www-authenticate": 'Bearer realm="mcp"' } : {};
  if (err instanceof GatewayError && err.detail.retryAfter !== undefined) headers["retry-after"] = String(err.detail.retryAfter);
  return rpcError(status, e.code, e.message, e.data, headers);
}

async function callerOf(call: IncomingCall): Promise<{ principal: Principal; authorization: string | null }> {
  const authorization = call.header("authorization");
  const bearer = credentialOf(authorization, call.header("x-api-key"));
  const principal = await authenticate(
    { bearer: () => bearer, authorization, payment: call.header("payment-signature"), resource: () => call.selfOrigin() + MCP_PATH },
    // With x402 on, a caller without a credential pays each priced tool call (mcp/calls/tool-payment.ts).
    { spends: false, permission: "mcp", method: call.method, path: MCP_PATH, x402: "exact" },
  );
  return { principal, authorization: bearer };
}

/** A client that accepts no JSON: an Accept header naming neither application/json, text/event-stream nor a wildcard. */
const refusesJson = (accept: string | undefined) => accept !== undefined && accept.trim() !== "" && !/application\/(json|\*)|text\/event-stream|\*\/\*/i.test(accept);

/** Streamable HTTP's checks of a POST, as the SDK's server transport makes them; null when it may go on. */
function httpRefusal(call: IncomingCall): Reply | null {
  if (refusesJson(call.header("accept"))) return rpcError(406, ErrorCode.ConnectionClosed, "Not Acceptable: the client must accept application/json and text/event-stream.");
  if (!/^application\/json\b/i.test(call.header("content-type") ?? "")) return rpcError(415, ErrorCode.ConnectionClosed, "Unsupported Media Type: Content-Type must be application/json.");
  const version = call.header("mcp-protocol-version");
  if (version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return rpcError(400, ErrorCode.ConnectionClosed, `Bad Request: unsupported protocol version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}).`);
  }
  return null;
}

// Messages checked as JSONRPCMessageSchema says (mcp/rpc-shapes.ts), told apart by their fields
// (the SDK's own type guards build a zod error for every message they do not match: microseconds a message).
const isRequest = (m: JSONRPCMessage): m is JSONRPCRequest => "method" in m && "id" in m;
const isNotification = (m: JSONRPCMessage): m is JSONRPCNotification => "method" in m && !("id" in m);
/** An initialize request; its params are checked by the SDK's server, which answers a bad one with an error (no session opened). */
const isInitialize = (m: JSONRPCMessage): m is JSONRPCRequest => isRequest(m) && m.method === "initialize";

/** The body's JSON-RPC messages, or the answer that refuses it. */
async function messagesOf(call: IncomingCall): Promise<{ messages: JSONRPCMessage[]; batch: boolean } | Reply> {
  let body: unknown;
  try {
    body = parseJson(await readBodyBytes(call.body(), env.MAX_JSON_BODY_BYTES, call.header("content-length")));
  } catch (err) {
    if (err instanceof GatewayError && err.status === 413) return refusal(err);
    return rpcError(400, ErrorCode.ParseError, "Parse error: the body is not JSON.");
  }
  const batch = Array.isArray(body);
  const list = batch ? (body as unknown[]) : [body];
  if (!list.length || !list.every(isJsonRpcMessage)) return rpcError(400, ErrorCode.InvalidRequest, "Invalid Request: the body is not a JSON-RPC message (or a batch of them).");
  const messages = list as JSONRPCMessage[];
  if (batch && messages.some(isInitialize)) return rpcError(400, ErrorCode.InvalidRequest, "Invalid Request: initialize must be sent alone, not in a batch.");
  return { messages, batch };
}

async function post(call: IncomingCall, principal: Principal, authorization: string | null): Promise<Reply> {
  const refused = httpRefusal(call);
  if (refused) return refused;
  const read = await messagesOf(call);
  if ("kind" in read) return read;
  const { messages, batch } = read;
  const init = messages.find(isInitialize);
  let session: McpSessionRow | null = null;
  if (!init) {
    const id = call.header("mcp-session-id");
    if (!id) return rpcError(400, ErrorCode.InvalidRequest, "Bad Request: the Mcp-Session-Id header is required (initialize opens a session).");
    session = await sessionFor(id, principal);
    if (!session) return rpcError(404, RPC_CODES.sessionNotFound, "Session not found: it ended or belongs to another credential. Initialize a new one.");
  }
  const caller: ToolCaller = {
    principal,
    holder: session?.id ?? "initialize",
    store: session ? upstreamStore(session) : null,
    via: "mcp",
    clientIp: call.clientIp?.() ?? null,
    userAgent: call.header("user-agent") ?? null,
    checkSpend: authorization ? async () => void (await authenticateBearer(authorization, true)) : undefined,
  };
  const requests = messages.filter(isRequest);
  for (const m of messages) if (isNotification(m)) takeNotification(m, caller);
  const headers: Record<string, string> = {};
  if (!requests.length) {
    if (session) headers["mcp-session-id"] = session.id;
    return { kind: "empty", status: 202, headers };
  }
  const answers = await Promise.all(requests.map((r) => answerRequest(r, caller)));
  const version = init && (answers[0] as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
  if (init && typeof version === "string") session = await openSession(principal, version, (init.params as { clientInfo?: unknown } | undefined)?.clientInfo);
  if (session) headers["mcp-session-id"] = session.id;
  headers["content-type"] = "application/json";
  return { kind: "json", status: 200, headers, body: JSON.stringify(batch ? answers : answers[0]) };
}

/** Answers one request to /mcp. Never throws. */
export async function serveMcp(call: IncomingCall): Promise<Reply> {
  const startedAt = performance.now();
  const requestId = newRequestId();
  let reply: Reply;
  try {
    if (isPreflight(call)) reply = preflightReply(call, METHODS, requestId);
    else if (call.method === "OPTIONS") reply = { kind: "empty", status: 204, headers: { allow: METHODS.join(", ") } };
    else if (call.method !== "POST" && call.method !== "DELETE") {
      // GET would open a stream of server-initiated messages, which the gateway does not send.
      reply = rpcError(405, ErrorCode.InvalidRequest, `Method ${call.method} is not allowed on /mcp. Allowed: ${METHODS.join(", ")}.`, undefined, { allow: METHODS.join(", ") });
    } else {
      const { principal, authorization } = await callerOf(call);
      if (call.method === "DELETE") {
        const id = call.header("mcp-session-id");
        const session = id ? await sessionFor(id, principal) : null;
        if (session) await endSession(session.id);
        reply = session ? { kind: "empty", status: 200, headers: {} } : rpcError(404, RPC_CODES.sessionNotFound, "Session not found.");
      } else reply = await post(call, principal, authorization);
    }
  } catch (err) {
    reply = refusal(err);
  }
  reply.headers["x-request-id"] ??= requestId;
  finishHeaders(reply, call, startedAt);
  return reply;
}
