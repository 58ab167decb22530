// The MCP server /mcp speaks, the official SDK's `Server`, one per process: for the caller each
// request comes with, the tools (and prompts and resources) of the servers its workspace has that
// the caller may use, named `<server>__<tool>`, from the catalogs the registry keeps; calls are
// forwarded on the caller's session's server connections (calls/tool-call.ts).
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Principal } from "../../identity/principal";
import { callTool, type ToolCaller } from "../calls/tool-call";
import { toolFilterFor, unknownResource, unknownTool, type ToolFilter } from "../calls/tool-access";
import { PAYMENT_META } from "../calls/tool-payment";
import { serversFor } from "../registry/registry-cache";
import { qualifiedName, splitQualified, type McpServerEntry } from "../server-def";
import { withUpstream } from "../upstream/upstream-pool";
import { toMcpError } from "./rpc-errors";

export const GATEWAY_SERVER_INFO = { name: "model-gateway", title: "Model gateway", version: "1.0.0" };

/**
 * The SDK's Server builds an Ajv instance of its own unless it is given one (about 0.8 ms of CPU,
 * on every request, since a server is built per request); it validates only elicitation answers,
 * which the gateway never asks for. One, made at the first request, serves them all.
 */
let validator: AjvJsonSchemaValidator | undefined;

type Offered = { servers: McpServerEntry[]; filter: ToolFilter };

async function offered(principal: Principal): Promise<Offered> {
  const [servers, filter] = await Promise.all([serversFor(principal.workspaceId), toolFilterFor(principal)]);
  return { servers, filter };
}

/** A server's prompts and resources are offered to a caller that may use any of its tools (all of them for one without tools). */
const mayUseServer = (s: McpServerEntry, filter: ToolFilter) => {
  const tools = s.catalog?.tools ?? [];
  return tools.length ? tools.some((t) => filter(qualifiedName(s.name, t.name))) : filter(qualifiedName(s.name, "*"));
};

function listedTools(o: Offered): Tool[] {
  const tools: Tool[] = [];
  for (const s of o.servers) {
    for (const t of s.catalog?.tools ?? []) {
      const name = qualifiedName(s.name, t.name);
      if (o.filter(name)) tools.push({ ...t, name, inputSchema: t.inputSchema as Tool["inputSchema"] } as Tool);
    }
  }
  return tools;
}

async function handled<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toMcpError(err);
  }
}

/** A `tools/call` result, or the gateway's refusal, as the SDK's server answers it. */
const callToolResult = (caller: ToolCaller, params: ToolCallParams): Promise<CallToolResult> =>
  handled(async () => (await callTool(caller, params.name, params.arguments, params._meta?.[PAYMENT_META])).result);

type ToolCallParams = { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The params of a plain `tools/call` (`CallToolRequestSchema`'s shape, with no task asked for and
 * no related task): what almost every call is. Anything else goes through the SDK's server, which
 * checks it against the schema and answers its errors.
 */
function plainToolCall(params: unknown): params is ToolCallParams {
  if (!isRecord(params) || typeof params.name !== "string" || params.task !== undefined) return false;
  if (params.arguments !== undefined && !isRecord(params.arguments)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isRecord(meta) || meta[RELATED_TASK_META_KEY] !== undefined) return false;
  const token = meta.progressToken;
  return token === undefined || typeof token === "string" || Number.isSafeInteger(token);
}

/**
 * Answers a plain `tools/call` without the SDK server's machinery (an AbortController and its
 * signal, the request parsed by its schema twice, the result, already checked when the tool's
 * server answered it, checked again): the path of every tool call, answered as the SDK's server
 * answers it (its result, or its error's code, message and data). Null for any other request.
 */
export function answerToolCall(message: JSONRPCRequest, caller: ToolCaller): Promise<JSONRPCMessage> | null {
  if (message.method !== "tools/call" || !plainToolCall(message.params)) return null;
  const id = message.id;
  return callToolResult(caller, message.params).then(
    (result) => ({ result, jsonrpc: "2.0", id }) as JSONRPCMessage,
    (err: { code?: unknown; message?: string; data?: unknown }) => {
      const code = Number.isSafeInteger(err.code) ? (err.code as number) : ErrorCode.InternalError;
      const error = err.data === undefined ? { code, message: err.message ?? "Internal error" } : { code, message: err.message ?? "Internal error", data: err.data };
      return { jsonrpc: "2.0", id, error } as JSONRPCMessage;
    },
  );
}

/** The caller a request is served for: handed over with each message (local-transport.ts). */
function callerOf(extra: { authInfo?: AuthInfo }): ToolCaller {
  const caller = extra.authInfo?.extra?.caller as ToolCaller | undefined;
  if (!caller) throw new Error("an MCP request without its caller");
  return caller;
}

/**
 * The MCP server /mcp speaks, one per process: every request is handed to it with its caller
 * (local-transport.ts), whose servers and permissions its handlers read.
 */
export function gatewayMcpServer(): Server {
  const server = new Server(GATEWAY_SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, prompts: { listChanged: false }, resources: { listChanged: false } },
    instructions: "The tools of the MCP servers this workspace registered with the gateway, named <server>__<tool>.",
    jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator()),
  });
  server.setRequestHandler(ListToolsRequestSchema, (_req, extra) => handled(async () => ({ tools: listedTools(await offered(callerOf(extra).principal)) })));
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => callToolResult(callerOf(extra), req.params));
  server.setRequestHandler(ListPromptsRequestSchema, (_req, extra) =>
    handled(async () => {
      const o = await offered(callerOf(extra).principal);
      const prompts = o.servers.filter((s) => mayUseServer(s, o.filter)).flatMap((s) => (s.catalog?.prompts ?? []).map((p) => ({ ...p, name: qualifiedName(s.name, p.name) })));
      return { prompts };
    }),
  );
  server.setRequestHandler(GetPromptRequestSchema, (req, extra) =>
    handled(async () => {
      const caller = callerOf(extra);
      const o = await offered(caller.principal);
      const split = splitQualified(req.params.name);
      const s = split && o.servers.find((x) => x.name === split.server && mayUseServer(x, o.filter));
      if (!split || !s) throw unknownTool(req.params.name);
      return withUpstream(s, caller.holder, caller.store, (u) => u.client.getPrompt({ name: split.tool, arguments: req.params.arguments }));
    }),
  );
  server.setRequestHandler(ListResourcesRequestSchema, (_req, extra) =>
    handled(async () => {
      const o = await offered(callerOf(extra).principal);
      const resources = o.servers.filter((s) => mayUseServer(s, o.filter)).flatMap((s) => (s.catalog?.resources ?? []).map((r) => ({ ...r, name: qualifiedName(s.name, r.name) })));
      return { resources };
    }),
  );
  server.setRequestHandler(ReadResourceRequestSchema, (req, extra) =>
    handled(async () => {
      const caller = callerOf(extra);
      const o = await offered(caller.principal);
      const s = o.servers.find((x) => mayUseServer(x, o.filter) && x.catalog?.resources.some((r) => r.uri === req.params.uri));
      if (!s) throw unknownResource(req.params.uri);
      return withUpstream(s, caller.holder, caller.store, (u) => u.client.readResource({ uri: req.params.uri }));
    }),
  );
  return server;
}
