// The responses API's `mcp` tool and the MCP items a request may carry, in OpenAI's shapes (the
// remote MCP tool of its Responses API): the tool, and the output items a client sends back as
// input (`mcp_list_tools`, `mcp_call`, `mcp_approval_request`) with its answer to an approval
// request (`mcp_approval_response`).
import { z } from "zod";
import { SERVER_NAME } from "../../mcp/server-def";

/** Tools named by their names, or (OpenAI's filter object) by names and the readOnlyHint annotation. */
const ZToolFilter = z.looseObject({ tool_names: z.array(z.string().min(1)).optional(), read_only: z.boolean().optional() });
export type McpToolFilter = z.infer<typeof ZToolFilter>;

export const ZMcpTool = z.looseObject({
  type: z.literal("mcp"),
  // The label is the prefix of the tool names the caller's tool list is checked against (`<label>__<tool>`), as on /mcp.
  server_label: z.string().min(1).max(48).regex(SERVER_NAME, "lower-case letters, digits, - and _ (not __), as the name of a registered server"),
  server_url: z.string().min(1).max(2000).optional(),
  server_description: z.string().max(2000).optional(),
  allowed_tools: z.union([z.array(z.string().min(1)), ZToolFilter]).nullable().optional(),
  require_approval: z
    .union([z.enum(["always", "never"]), z.looseObject({ always: ZToolFilter.optional(), never: ZToolFilter.optional() })])
    .nullable()
    .optional(),
  headers: z.record(z.string().min(1).max(200), z.string().max(8192)).nullable().optional(),
  /** An OAuth access token for the server: sent as `Authorization: Bearer <token>`. */
  authorization: z.string().min(1).max(8192).optional(),
  connector_id: z.string().optional(),
});
export type McpTool = z.infer<typeof ZMcpTool>;

const ZListedTool = z.looseObject({
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  input_schema: z.unknown(),
  annotations: z.unknown().optional(),
});

export const ZMcpListToolsItem = z.looseObject({
  type: z.literal("mcp_list_tools"),
  id: z.string().min(1),
  server_label: z.string().min(1),
  tools: z.array(ZListedTool),
  error: z.string().nullable().optional(),
});

export const ZMcpCallItem = z.looseObject({
  type: z.literal("mcp_call"),
  id: z.string().min(1),
  server_label: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  output: z.string().nullable().optional(),
  error: z.string().nullable().optional(),
  approval_request_id: z.string().nullable().optional(),
});

export const ZMcpApprovalRequestItem = z.looseObject({
  type: z.literal("mcp_approval_request"),
  id: z.string().min(1),
  server_label: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});

export const ZMcpApprovalResponseItem = z.looseObject({
  type: z.literal("mcp_approval_response"),
  id: z.string().optional(),
  approval_request_id: z.string().min(1),
  approve: z.boolean(),
  reason: z.string().nullable().optional(),
});

export const ZMcpInputItem = z.discriminatedUnion("type", [ZMcpListToolsItem, ZMcpCallItem, ZMcpApprovalRequestItem, ZMcpApprovalResponseItem]);
export type McpInputItem = z.infer<typeof ZMcpInputItem>;
