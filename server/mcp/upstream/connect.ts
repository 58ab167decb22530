// A connection to a registered MCP server through the official SDK's client: Streamable HTTP, or
// the older HTTP+SSE transport. A Streamable HTTP session opened before (by this instance or
// another, kept with the /mcp session in PostgreSQL) is resumed by its id without a new handshake.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError, type CallToolRequest, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { callToolResultOf } from "../rpc-shapes";
import type { McpServerEntry } from "../server-def";
import { rpcPost } from "./rpc-post";
import { upstreamFetch } from "./upstream-fetch";

export const GATEWAY_CLIENT_INFO = { name: "model-gateway", version: "1.0.0" };

/** A server's session as kept with an /mcp session: resumable by any instance. */
export type UpstreamSession = { sessionId: string; protocolVersion: string };

export type Upstream = {
  client: Client;
  /** Calls a tool (Streamable HTTP: one POST of its own, rpc-post.ts; HTTP+SSE: the SDK's client). */
  callTool(params: CallToolRequest["params"], timeoutMs: number): Promise<CallToolResult>;
  /** The server's session, when it keeps sessions (Streamable HTTP; null for a stateless server and for HTTP+SSE). */
  session: UpstreamSession | null;
  close(): Promise<void>;
  /** Ends the server's session too (DELETE), for a session no one will resume. */
  terminate(): Promise<void>;
};

/** A tool's result checked against the MCP schema, as the SDK's client checks it. */
function checkedResult(result: unknown): CallToolResult {
  const checked = callToolResultOf(result);
  if (!checked.ok) throw new McpError(ErrorCode.InvalidParams, `the server's tool result is not valid: ${checked.why}`);
  return checked.result;
}

/** Connects to `server`, resuming `resume` when given (Streamable HTTP only). */
export async function connectUpstream(server: McpServerEntry, resume: UpstreamSession | null = null): Promise<Upstream> {
  const client = new Client(GATEWAY_CLIENT_INFO, { capabilities: {} });
  const fetch = upstreamFetch(server);
  if (server.transport === "sse") {
    const transport = new SSEClientTransport(new URL(server.url), { fetch, eventSourceInit: { fetch } });
    await client.connect(transport);
    const callTool = (params: CallToolRequest["params"], timeout: number) => client.callTool(params, undefined, { timeout }) as Promise<CallToolResult>;
    return { client, callTool, session: null, close: () => client.close(), terminate: () => client.close() };
  }
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { fetch, sessionId: resume?.sessionId });
  if (resume) transport.setProtocolVersion(resume.protocolVersion);
  await client.connect(transport);
  const sessionId = transport.sessionId;
  const protocolVersion = resume?.protocolVersion ?? transport.protocolVersion;
  const session = sessionId && protocolVersion ? { sessionId, protocolVersion } : null;
  const target = { server, sessionId: sessionId ?? null, protocolVersion: protocolVersion ?? null };
  return {
    client,
    callTool: async (params, timeoutMs) => checkedResult(await rpcPost(target, "tools/call", params, timeoutMs)),
    session,
    close: () => client.close(),
    terminate: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}
