// A stand-in MCP server built with the official SDK, on a node:http server on a free port of
// 127.0.0.1: Streamable HTTP at /mcp (a session of its own per client), or with `sse: true` the
// older HTTP+SSE transport (GET /sse, POST /messages). It offers the tools `echo` ({text} -> text),
// `add` ({a, b} -> the sum) and `fail` (a tool error), the prompt `greet` and the resource
// `standin://readme`, records every tool call it receives with the HTTP headers that carried it,
// and with `requireHeader` answers 401 to any request without that header and value.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** A tool of a test's own: its arguments are taken as they come (no schema). */
export type StandInTool = { name: string; description?: string; run: (args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult> };
export type ReceivedCall = { name: string; arguments: Record<string, unknown>; headers: IncomingHttpHeaders };

export type StandInOptions = {
  /** More tools (one named like a default replaces it). */
  tools?: StandInTool[];
  /** Refuse (401) every request that does not carry this header with this value. */
  requireHeader?: { name: string; value: string };
  /** Serve the older HTTP+SSE transport instead of Streamable HTTP. */
  sse?: boolean;
};

export type StandInMcpServer = {
  /** The URL to register: .../mcp, or .../sse with `sse`. */
  url: string;
  /** Tool calls received, oldest first. */
  calls: ReceivedCall[];
  /** Sessions opened so far. */
  readonly sessions: number;
  close: () => Promise<void>;
};

const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });

function build(opts: StandInOptions, calls: ReceivedCall[]): McpServer {
  const server = new McpServer({ name: "stand-in", version: "1.0.0" });
  const record = (name: string, args: unknown, headers: IncomingHttpHeaders | undefined) => calls.push({ name, arguments: (args ?? {}) as Record<string, unknown>, headers: headers ?? {} });
  const own = new Set((opts.tools ?? []).map((t) => t.name));
  const headersOf = (extra: { requestInfo?: { headers: unknown } }) => extra.requestInfo?.headers as IncomingHttpHeaders | undefined;
  if (!own.has("echo")) {
    server.registerTool("echo", { description: "Answers the text it is given.", inputSchema: { text: z.string() } }, ({ text: t }, extra) => {
      record("echo", { text: t }, headersOf(extra));
      return text(t);
    });
  }
  if (!own.has("add")) {
    server.registerTool("add", { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }, extra) => {
      record("add", { a, b }, headersOf(extra));
      return text(String(a + b));
    });
  }
  if (!own.has("fail")) {
    server.registerTool("fail", { description: "Always fails." }, (extra) => {
      record("fail", {}, headersOf(extra));
      return { ...text("the stand-in tool failed on purpose"), isError: true };
    });
  }
  for (const tool of opts.tools ?? []) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: z.object({}).passthrough() }, (args, extra) => {
      record(tool.name, args, headersOf(extra));
      return tool.run(args as Record<string, unknown>);
    });
  }
  server.registerPrompt("greet", { description: "A greeting for someone.", argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Say hello to ${name}.` } }],
  }));
  server.registerResource("readme", "standin://readme", { description: "What the stand-in is.", mimeType: "text/plain" }, (uri) => ({
    contents: [{ uri: uri.href, text: "A stand-in MCP server for tests." }],
  }));
  return server;
}

export async function startStandInMcpServer(opts: StandInOptions = {}): Promise<StandInMcpServer> {
  const calls: ReceivedCall[] = [];
  let sessions = 0;
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const need = opts.requireHeader;
    if (need && req.headers[need.name.toLowerCase()] !== need.value) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    const path = new URL(req.url ?? "/", "http://stand-in").pathname;
    if (opts.sse) {
      if (req.method === "GET" && path === "/sse") {
        const transport = new SSEServerTransport("/messages", res);
        sse.set(transport.sessionId, transport);
        transport.onclose = () => sse.delete(transport.sessionId);
        sessions++;
        await build(opts, calls).connect(transport);
        return;
      }
      const transport = sse.get(new URL(req.url ?? "/", "http://stand-in").searchParams.get("sessionId") ?? "");
      if (req.method === "POST" && path === "/messages" && transport) return transport.handlePostMessage(req, res);
      res.writeHead(404).end();
      return;
    }
    if (path !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? streamable.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (typeof id === "string") {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
      return;
    }
    // A request without a session opens one (the transport refuses anything but initialize).
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions++;
        streamable.set(sid, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) streamable.delete(transport.sessionId);
    };
    await build(opts, calls).connect(transport);
    await transport.handleRequest(req, res);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url: `${base}${opts.sse ? "/sse" : "/mcp"}`,
    calls,
    get sessions() {
      return sessions;
    },
    close: async () => {
      await Promise.all([...streamable.values(), ...sse.values()].map((t) => t.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
