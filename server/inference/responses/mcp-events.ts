// The stream events of MCP output items, OpenAI's: a tools list is announced, in progress, then
// completed or failed; a call is announced, its arguments streamed, in progress while the server
// runs it, then completed or failed; an approval request is announced and done. Sent live by
// mcp-run.ts and made from a stored response by replay.ts (through events.ts's itemEvents).
import type { ResponseEvent } from "./events";
import type { McpCallItem, McpItem, McpListToolsItem } from "./mcp-items";

type At = { item_id: string; output_index: number };
const at = (outputIndex: number, item: { id: string }): At => ({ item_id: item.id, output_index: outputIndex });

const added = (outputIndex: number, item: McpItem): ResponseEvent => ({ type: "response.output_item.added", output_index: outputIndex, item });
const done = (outputIndex: number, item: McpItem): ResponseEvent => ({ type: "response.output_item.done", output_index: outputIndex, item });

/** A tools list, from its announcement to its end. */
export function listEvents(outputIndex: number, item: McpListToolsItem): ResponseEvent[] {
  return [
    added(outputIndex, { ...item, tools: [], error: null }),
    { type: "response.mcp_list_tools.in_progress", ...at(outputIndex, item) },
    { type: item.error ? "response.mcp_list_tools.failed" : "response.mcp_list_tools.completed", ...at(outputIndex, item) },
    done(outputIndex, item),
  ];
}

/** A call until the server runs it: announced, its arguments, in progress. */
export function callOpened(outputIndex: number, item: McpCallItem): ResponseEvent[] {
  const events = [added(outputIndex, { ...item, arguments: "", output: null, error: null, status: "in_progress" })];
  if (item.arguments) events.push({ type: "response.mcp_call_arguments.delta", ...at(outputIndex, item), delta: item.arguments });
  events.push({ type: "response.mcp_call_arguments.done", ...at(outputIndex, item), arguments: item.arguments });
  events.push({ type: "response.mcp_call.in_progress", ...at(outputIndex, item) });
  return events;
}

/** A call the server answered (or that failed). */
export function callClosed(outputIndex: number, item: McpCallItem): ResponseEvent[] {
  return [{ type: item.error ? "response.mcp_call.failed" : "response.mcp_call.completed", ...at(outputIndex, item) }, done(outputIndex, item)];
}

/** Every event of a finished MCP item (a stored response's replay). */
export function mcpItemEvents(outputIndex: number, item: McpItem): ResponseEvent[] {
  if (item.type === "mcp_list_tools") return listEvents(outputIndex, item);
  if (item.type === "mcp_call") return [...callOpened(outputIndex, item), ...callClosed(outputIndex, item)];
  return [added(outputIndex, item), done(outputIndex, item)];
}
