// What an `mcp` tool's settings decide, as OpenAI's remote MCP tool has them: which of the
// server's tools the model is offered (`allowed_tools`), which calls wait for the client's approval
// (`require_approval`, "always" when not given: no data goes to a server the client did not see
// first), and how the tool is echoed and stored (never its headers or token).
import type { McpListedTool } from "./mcp-items";
import type { McpTool, McpToolFilter } from "./mcp-schema";
import type { ResponseCreate } from "./schema";

const readOnly = (tool: McpListedTool) => (tool.annotations as { readOnlyHint?: unknown } | null)?.readOnlyHint === true;

/** Whether a filter object names the tool: every criterion it gives holds (an empty filter names none). */
function matches(filter: McpToolFilter | undefined, tool: McpListedTool): boolean {
  if (!filter || (filter.tool_names === undefined && filter.read_only === undefined)) return false;
  if (filter.tool_names !== undefined && !filter.tool_names.includes(tool.name)) return false;
  if (filter.read_only !== undefined && readOnly(tool) !== filter.read_only) return false;
  return true;
}

/** Whether `allowed_tools` lets the model see the tool (all of them when it is not given). */
export function allowedByTool(spec: McpTool, tool: McpListedTool): boolean {
  const allowed = spec.allowed_tools;
  if (allowed == null) return true;
  if (Array.isArray(allowed)) return allowed.includes(tool.name);
  return matches(allowed, tool);
}

/**
 * Whether a call of the tool waits for the client's approval. Not given, or "always": every call.
 * A filter object: the tools `never` names run at once, those `always` names wait; a tool neither
 * names waits, unless only `always` was given (then the others run at once).
 */
export function needsApproval(spec: McpTool, tool: McpListedTool): boolean {
  const policy = spec.require_approval ?? "always";
  if (policy === "always") return true;
  if (policy === "never") return false;
  if (matches(policy.never, tool)) return false;
  if (matches(policy.always, tool)) return true;
  return !(policy.always && !policy.never);
}

/** The tool as the Response object gives it back: its settings, without the headers' values. */
export function mcpToolObject(t: McpTool): Record<string, unknown> {
  return {
    type: "mcp",
    server_label: t.server_label,
    server_url: t.server_url ?? null,
    allowed_tools: t.allowed_tools ?? null,
    require_approval: t.require_approval ?? "always",
    headers: t.headers ? Object.fromEntries(Object.keys(t.headers).map((k) => [k, "<redacted>"])) : null,
    server_description: t.server_description ?? null,
  };
}

/** The request as stored: an `mcp` tool's headers and token are credentials, kept nowhere (a continuation sends its tools again). */
export function withoutMcpSecrets(req: ResponseCreate): ResponseCreate {
  if (!req.tools?.some((t) => t.type === "mcp")) return req;
  const tools = req.tools.map((t) => {
    if (t.type !== "mcp") return t;
    const { headers, authorization: _token, ...rest } = t;
    return { ...rest, ...(headers && { headers: Object.fromEntries(Object.keys(headers).map((k) => [k, "<redacted>"])) }) };
  });
  return { ...req, tools };
}

/**
 * Whether the request runs the MCP loop: it has an `mcp` tool, or answers an approval request. The
 * loop (mcp-response.ts, with the MCP SDK's client) is loaded by the first request that does.
 */
export function usesMcp(req: ResponseCreate, inputItems: readonly { type: string }[]): boolean {
  return !!req.tools?.some((t) => t.type === "mcp") || inputItems.some((i) => i.type === "mcp_approval_response");
}
