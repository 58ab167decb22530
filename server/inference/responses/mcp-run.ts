// The loop of a response with `mcp` tools: the calls the client approved run first; then the model
// is called with the servers' tools as function tools, the gateway runs the calls it makes of
// them (`mcp_call` items, the result or error told to the model) and calls it again, until it
// answers without calling one. A call that needs approval ends the response with an
// `mcp_approval_request` instead; a call of a function of the client's own ends it with that
// `function_call`, as without MCP. At most MAX_TURNS model turns and `max_tool_calls` calls: the
// last turn allowed is asked to answer without tools, and a call made beyond either bound is not
// run (its item says why) and the response ends incomplete.
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { GatewayError } from "../../kernel/errors";
import { logFor } from "../../infra/telemetry/log";
import { callServerTool, type ToolCaller } from "../../mcp/calls/tool-call";
import { itemEvents, type ResponseEvent } from "./events";
import type { Item } from "./items";
import { callClosed, callOpened, mcpItemEvents } from "./mcp-events";
import { mcpFunctionName, mcpItemId, type McpApprovalRequestItem, type McpApprovalResponseItem, type McpCallItem, type McpListedTool } from "./mcp-items";
import { needsApproval } from "./mcp-policy";
import type { ListedServer } from "./mcp-servers";
import type { TurnMeters } from "./mcp-turns";
import type { ResponseState } from "./response-object";
import type { ResponseCreate } from "./schema";
import { outputFromCompletion, toChatRequest } from "./translate";

const log = logFor("responses");

/** The most model turns one response runs. */
export const MAX_TURNS = 8;

export type McpRun = {
  req: ResponseCreate;
  state: ResponseState;
  /** Everything before this response's output: the earlier turns and this request's input. */
  context: Item[];
  servers: ListedServer[];
  approvals: McpApprovalResponseItem[];
  turns: TurnMeters;
  caller: ToolCaller;
};

type Offered = { server: ListedServer; tool: McpListedTool };

/** The servers' tools by the function name the model is given. */
export function offeredTools(servers: ListedServer[]): Map<string, Offered> {
  return new Map(servers.flatMap((server) => server.tools.map((tool) => [mcpFunctionName(server.spec.server_label, tool.name), { server, tool }] as const)));
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** The chat request of a turn: the request's own function tools and the servers'; on the last turn, no tool may be called. */
export function turnRequest(req: ResponseCreate, items: Item[], offered: Map<string, Offered>, last: boolean): Record<string, unknown> {
  const body = toChatRequest(req, items);
  const functions = [...offered].map(([name, { tool, server }]) => ({
    type: "function",
    function: {
      name,
      ...((tool.description ?? server.spec.server_description) && { description: tool.description ?? server.spec.server_description }),
      parameters: isObject(tool.input_schema) ? tool.input_schema : { type: "object", properties: {} },
    },
  }));
  const tools = [...((body.tools as unknown[] | undefined) ?? []), ...functions];
  if (!tools.length) {
    delete body.tool_choice;
    return body;
  }
  return { ...body, tools, ...(last && { tool_choice: "none" }) };
}

/** A tool's result as the `mcp_call` item's output: its text, other content as JSON. */
function resultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((p) => (p.type === "text" ? p.text : JSON.stringify(p)));
  if (!parts.length && result.structuredContent) return JSON.stringify(result.structuredContent);
  return parts.join("\n");
}

function callError(err: unknown): string {
  if (err instanceof GatewayError || err instanceof McpError) return err.message;
  log.error({ err }, "an MCP tool call of a response failed");
  return "The tool call failed.";
}

export async function* runMcp(run: McpRun): AsyncGenerator<ResponseEvent> {
  const { req, state, turns } = run;
  const out = state.output;
  const push = (item: Item) => out.push(item) - 1;
  const offered = offeredTools(run.servers);
  const max = req.max_tool_calls ?? null;
  let used = 0;

  for (const server of run.servers) if (server.list) yield* mcpItemEvents(push(server.list), server.list);

  async function* execute(label: string, name: string, args: string, approvalRequestId: string | null): AsyncGenerator<ResponseEvent> {
    const item: McpCallItem = { id: mcpItemId("mcp"), type: "mcp_call", server_label: label, name, arguments: args, output: null, error: null, approval_request_id: approvalRequestId, status: "in_progress" };
    const index = push(item);
    yield* callOpened(index, item);
    used++;
    const target = offered.get(mcpFunctionName(label, name));
    try {
      if (!target || target.server.spec.server_label !== label) throw new GatewayError({ status: 400, code: "tool_not_found", message: `The tool \`${name}\` of \`${label}\` is not among this request's tools.` });
      const parsed: unknown = JSON.parse(args || "{}");
      if (!isObject(parsed)) throw new GatewayError({ status: 400, code: "invalid_arguments", message: "The tool's arguments are not a JSON object." });
      const { result } = await callServerTool(run.caller, target.server.entry, name, parsed);
      const text = resultText(result);
      if (result.isError) item.error = text || "The tool reported an error.";
      else item.output = text;
    } catch (err) {
      item.error = err instanceof SyntaxError ? "The tool's arguments are not valid JSON." : callError(err);
    }
    item.status = item.error ? "failed" : "completed";
    yield* callClosed(index, item);
  }

  // Calls the client approved (a declined one is told to the model as declined: mcp-items.ts).
  for (const answer of run.approvals) {
    if (!answer.approve) continue;
    const request = run.context.find((i): i is McpApprovalRequestItem => i.type === "mcp_approval_request" && i.id === answer.approval_request_id)!;
    yield* execute(request.server_label, request.name, request.arguments, request.id);
  }

  for (let turn = 1; ; turn++) {
    const last = turn >= MAX_TURNS || (max !== null && used >= max);
    const completion = await turns.call(turn, turnRequest(req, [...run.context, ...out], offered, last));
    const { output, outcome } = outputFromCompletion(completion);
    state.status = outcome.status;
    state.incompleteDetails = outcome.incompleteDetails;
    /** Calls whose result (or why they did not run) the model is told on the next turn. */
    let told = 0;
    let stop = outcome.status !== "completed";
    let bounded = false;
    for (const item of output) {
      const mcp = item.type === "function_call" ? offered.get(item.name) : undefined;
      if (item.type !== "function_call" || !mcp) {
        stop ||= item.type === "function_call"; // the client's own function: its call ends the response
        yield* itemEvents(push(item), item);
        continue;
      }
      const label = mcp.server.spec.server_label;
      if (last || (max !== null && used >= max)) {
        bounded = last;
        const why = max !== null && used >= max ? `this response reached max_tool_calls (${max})` : `this response reached its limit of ${MAX_TURNS} model turns`;
        const refused: McpCallItem = { id: mcpItemId("mcp"), type: "mcp_call", server_label: label, name: mcp.tool.name, arguments: item.arguments, output: null, error: `Not run: ${why}.`, approval_request_id: null, status: "failed" };
        yield* mcpItemEvents(push(refused), refused);
        told++;
        continue;
      }
      if (needsApproval(mcp.server.spec, mcp.tool)) {
        const request: McpApprovalRequestItem = { id: mcpItemId("mcpr"), type: "mcp_approval_request", server_label: label, name: mcp.tool.name, arguments: item.arguments };
        yield* mcpItemEvents(push(request), request);
        stop = true;
        continue;
      }
      yield* execute(label, mcp.tool.name, item.arguments, null);
      told++;
    }
    if (bounded) {
      state.status = "incomplete";
      state.incompleteDetails = { reason: "max_tool_calls" };
      return;
    }
    if (stop || last || told === 0) return;
  }
}
