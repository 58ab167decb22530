// The MCP items of a response (OpenAI's shapes), and what a chat node is told of them: a call the
// gateway ran is the model's function call and its result; an approval request is the model's
// call, answered by the call's result once approved, or by "declined" when the user said no.
import { createHash } from "node:crypto";
import { randomBase62 } from "../../kernel/ids";
import { qualifiedName } from "../../mcp/server-def";
import type { McpInputItem } from "./mcp-schema";

export type McpListedTool = { name: string; description: string | null; input_schema: unknown; annotations: unknown };
export type McpListToolsItem = { id: string; type: "mcp_list_tools"; server_label: string; tools: McpListedTool[]; error: string | null };
export type McpCallItem = {
  id: string;
  type: "mcp_call";
  server_label: string;
  name: string;
  arguments: string;
  output: string | null;
  error: string | null;
  approval_request_id: string | null;
  status: "in_progress" | "completed" | "failed";
};
export type McpApprovalRequestItem = { id: string; type: "mcp_approval_request"; server_label: string; name: string; arguments: string };
export type McpApprovalResponseItem = { id: string; type: "mcp_approval_response"; approval_request_id: string; approve: boolean; reason: string | null };
export type McpItem = McpListToolsItem | McpCallItem | McpApprovalRequestItem | McpApprovalResponseItem;

const MCP_TYPES = new Set(["mcp_list_tools", "mcp_call", "mcp_approval_request", "mcp_approval_response"]);
export const isMcpItem = (item: { type: string }): item is McpItem => MCP_TYPES.has(item.type);

export const mcpItemId = (prefix: "mcpl" | "mcp" | "mcpr" | "mcpa") => `${prefix}_${randomBase62(24)}`;

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The function name the model is given for `tool` of the server labelled `label`: `<label>__<tool>`
 * (the name the caller's tool list is checked against) when that is a valid function name, else
 * one made unique by a hash. A function of the same name always means the same (label, tool).
 */
export function mcpFunctionName(label: string, tool: string): string {
  const name = qualifiedName(label, tool);
  if (FUNCTION_NAME.test(name)) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 10);
  return `${label.slice(0, 24)}__${tool.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 26)}_${hash}`;
}

/** An MCP item as the client sent it, with every field its type has. */
export function normalizeMcpItem(item: McpInputItem): McpItem {
  switch (item.type) {
    case "mcp_list_tools":
      return {
        id: item.id,
        type: item.type,
        server_label: item.server_label,
        tools: item.tools.map((t) => ({ name: t.name, description: t.description ?? null, input_schema: t.input_schema ?? {}, annotations: t.annotations ?? null })),
        error: item.error ?? null,
      };
    case "mcp_call":
      return {
        id: item.id,
        type: item.type,
        server_label: item.server_label,
        name: item.name,
        arguments: item.arguments,
        output: item.output ?? null,
        error: item.error ?? null,
        approval_request_id: item.approval_request_id ?? null,
        status: item.error ? "failed" : "completed",
      };
    case "mcp_approval_request":
      return { id: item.id, type: item.type, server_label: item.server_label, name: item.name, arguments: item.arguments };
    case "mcp_approval_response":
      return { id: item.id ?? mcpItemId("mcpa"), type: item.type, approval_request_id: item.approval_request_id, approve: item.approve, reason: item.reason ?? null };
  }
}

/** What the model is told a call answered: its output, or its error. */
export const callResultText = (call: Pick<McpCallItem, "output" | "error">) => call.output ?? `Error: ${call.error ?? "the tool call failed"}`;

export const declinedText = (reason: string | null) => `The user declined this tool call${reason ? `: ${reason}` : "."} Do not call it again unless asked to.`;

/** The function call and function call output items (items.ts) an MCP item stands for. */
type ChatItem =
  | { id: string; type: "function_call"; call_id: string; name: string; arguments: string; status: "completed" }
  | { id: string; type: "function_call_output"; call_id: string; output: string; status: "completed" };
const call = (callId: string, label: string, name: string, args: string): ChatItem => ({ id: callId, type: "function_call", call_id: callId, name: mcpFunctionName(label, name), arguments: args, status: "completed" });
const result = (callId: string, output: string): ChatItem => ({ id: callId, type: "function_call_output", call_id: callId, output, status: "completed" });

/**
 * An MCP item as function calls and results for a chat node, given every item of the conversation
 * (an approval request becomes a call only once it has been answered: a node refuses a call
 * without its result). A tools list is no message: its tools are the request's function tools.
 */
export function mcpChatItems(item: McpItem, all: readonly { type: string }[]): ChatItem[] {
  const answered = (id: string) =>
    all.some((i) => (i.type === "mcp_approval_response" && (i as McpApprovalResponseItem).approval_request_id === id && !(i as McpApprovalResponseItem).approve) || (i.type === "mcp_call" && (i as McpCallItem).approval_request_id === id));
  switch (item.type) {
    case "mcp_list_tools":
      return [];
    case "mcp_approval_request":
      return answered(item.id) ? [call(item.id, item.server_label, item.name, item.arguments)] : [];
    case "mcp_approval_response":
      return item.approve ? [] : [result(item.approval_request_id, declinedText(item.reason))];
    case "mcp_call": {
      const requested = item.approval_request_id && all.some((i) => i.type === "mcp_approval_request" && (i as McpApprovalRequestItem).id === item.approval_request_id);
      if (requested) return [result(item.approval_request_id!, callResultText(item))];
      return [call(item.id, item.server_label, item.name, item.arguments), result(item.id, callResultText(item))];
    }
  }
}
