// How /mcp hands JSON-RPC messages to its one MCP server per process (gateway-mcp-server.ts): an
// in-process transport of the SDK's `Transport` shape. Each message goes in with its caller (as
// `authInfo.extra.caller`, which the SDK passes to the handlers) under an id of this process's
// own, so that two clients' equal ids never meet; its answer comes back under the client's id.
// Building an SDK server and a Streamable HTTP transport per request cost more than the hop
// itself; the HTTP part of Streamable HTTP is mcp-http's (server/transport/mcp/).
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { ToolCaller } from "../calls/tool-caller";
import { answerToolCall, gatewayMcpServer } from "./gateway-mcp-server";

type Waiting = { id: RequestId; resolve: (answer: JSONRPCMessage) => void };

class LocalTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private next = 0;
  private readonly waiting = new Map<RequestId, Waiting>();

  async start(): Promise<void> {}
  async close(): Promise<void> {}

  /** The server's answers go back to whoever waits; it sends nothing else (no server-initiated messages). */
  async send(message: JSONRPCMessage): Promise<void> {
    const id = "method" in message ? undefined : (message as { id?: RequestId }).id;
    const waiting = id === undefined ? undefined : this.waiting.get(id);
    if (!waiting) return;
    this.waiting.delete(id!);
    waiting.resolve({ ...message, id: waiting.id } as JSONRPCMessage);
  }

  request(message: JSONRPCRequest, caller: ToolCaller): Promise<JSONRPCMessage> {
    const id = ++this.next;
    return new Promise((resolve) => {
      this.waiting.set(id, { id: message.id, resolve });
      this.onmessage!({ ...message, id }, { authInfo: { token: "", clientId: "", scopes: [], extra: { caller } } });
    });
  }

  notify(message: JSONRPCNotification, caller: ToolCaller): void {
    this.onmessage!(message, { authInfo: { token: "", clientId: "", scopes: [], extra: { caller } } });
  }
}

let host: { server: Server; transport: LocalTransport } | undefined;

function local(): LocalTransport {
  if (!host) {
    const transport = new LocalTransport();
    const server = gatewayMcpServer();
    void server.connect(transport);
    host = { server, transport };
  }
  return host.transport;
}

/**
 * Answers a JSON-RPC request for `caller`: its result or error, under the client's id. A plain
 * `tools/call` is answered directly (gateway-mcp-server.ts), as the server would answer it.
 */
export const answerRequest = (message: JSONRPCRequest, caller: ToolCaller): Promise<JSONRPCMessage> => answerToolCall(message, caller) ?? local().request(message, caller);

/** Hands over a notification (`notifications/initialized`, a cancellation); nothing is answered. */
export const takeNotification = (message: JSONRPCNotification, caller: ToolCaller): void => local().notify(message, caller);
