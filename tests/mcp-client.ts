// The official MCP SDK's client, connected to the gateway's /mcp (or any MCP URL) with a bearer
// credential; `resume` continues a session by its id without a new handshake, as a client that
// reconnects (to another instance) does.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { baseUrl } from "./helpers";

export type McpTestClient = { client: Client; transport: StreamableHTTPClientTransport; sessionId: () => string | undefined; close: () => Promise<void> };

export async function mcpClient(secret: string | null, opts: { url?: string; resume?: { sessionId: string; protocolVersion: string } } = {}): Promise<McpTestClient> {
  const url = new URL(opts.url ?? `${baseUrl()}/mcp`);
  const headers: Record<string, string> = secret ? { authorization: `Bearer ${secret}` } : {};
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers }, sessionId: opts.resume?.sessionId });
  if (opts.resume) transport.setProtocolVersion(opts.resume.protocolVersion);
  const client = new Client({ name: "gateway-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, sessionId: () => transport.sessionId, close: () => client.close() };
}

/** A raw JSON-RPC POST to /mcp, for what a client would not send. */
export async function mcpPost(body: unknown, headers: Record<string, string> = {}, url = `${baseUrl()}/mcp`): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}
