// What the responses API answers (part 2.4 of the API reference, OpenAI's Responses API for the
// rest): the Response object that create, retrieve and cancel give, its output items, the input
// items as stored and listed, and the answer to a deletion. The requests are in schema.ts.
import { z } from "zod";
import { deletedAnswer, listPage, unixSeconds } from "../../kernel/answer-schemas";
import { SERVICE_TIERS } from "../chat/completion-shape";

const ZOutputText = z.strictObject({ type: z.literal("output_text"), text: z.string(), annotations: z.array(z.unknown()), logprobs: z.array(z.unknown()) });

const ZRefusal = z.strictObject({ type: z.literal("refusal"), refusal: z.string() });

/** Content parts of a stored user, system or developer message. */
const ZStoredInputPart = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("input_text"), text: z.string() }),
  z.strictObject({
    type: z.literal("input_image"),
    image_url: z.string().nullable(),
    file_id: z.string().nullable(),
    detail: z.enum(["low", "high", "auto", "original"]).describe("`auto` unless the client chose"),
  }),
]);

const itemStatus = z.enum(["in_progress", "completed", "incomplete"]);

const ZStoredFunctionCall = z.strictObject({
  id: z.string(),
  type: z.literal("function_call"),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  status: itemStatus,
});

const ZStoredFunctionCallOutput = z.strictObject({
  id: z.string(),
  type: z.literal("function_call_output"),
  call_id: z.string(),
  output: z.string(),
  status: itemStatus,
});

const ZMcpListTools = z.strictObject({
  id: z.string(),
  type: z.literal("mcp_list_tools"),
  server_label: z.string(),
  tools: z.array(z.strictObject({ name: z.string(), description: z.string().nullable(), input_schema: z.unknown(), annotations: z.unknown() })),
  error: z.string().nullable().describe("Why the server's tools could not be listed"),
});

const ZMcpCall = z.strictObject({
  id: z.string(),
  type: z.literal("mcp_call"),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
  output: z.string().nullable(),
  error: z.string().nullable().describe("The server's error, the tool's (a result with isError), or why the gateway did not run the call"),
  approval_request_id: z.string().nullable(),
  status: z.enum(["in_progress", "completed", "failed"]),
});

const ZMcpApprovalRequest = z.strictObject({ id: z.string(), type: z.literal("mcp_approval_request"), server_label: z.string(), name: z.string(), arguments: z.string() });

const ZMcpApprovalResponse = z.strictObject({ id: z.string(), type: z.literal("mcp_approval_response"), approval_request_id: z.string(), approve: z.boolean(), reason: z.string().nullable() });

/** An output item of a response: the assistant's message, a tool call, or an `mcp` tool's items. */
export const ZOutputItem = z.discriminatedUnion("type", [
  z.strictObject({ id: z.string(), type: z.literal("message"), role: z.literal("assistant"), status: itemStatus, content: z.array(ZOutputText) }),
  ZStoredFunctionCall,
  ZMcpListTools,
  ZMcpCall,
  ZMcpApprovalRequest,
]);

/**
 * An input item as stored and listed: typed, with an id; string content made into parts. An
 * assistant message is listed the way it is answered (output_text and refusal parts).
 */
export const ZStoredInputItem = z.union([
  z.strictObject({ id: z.string(), type: z.literal("message"), role: z.enum(["user", "system", "developer"]), status: itemStatus, content: z.array(ZStoredInputPart) }),
  z.strictObject({ id: z.string(), type: z.literal("message"), role: z.literal("assistant"), status: itemStatus, content: z.array(z.union([ZOutputText, ZRefusal])) }),
  ZStoredFunctionCall,
  ZStoredFunctionCallOutput,
  ZMcpListTools,
  ZMcpCall,
  ZMcpApprovalRequest,
  ZMcpApprovalResponse,
]);

export const ZResponsesUsage = z.strictObject({
  input_tokens: z.number().int(),
  input_tokens_details: z.strictObject({ cached_tokens: z.number().int(), cache_write_tokens: z.number().int() }),
  output_tokens: z.number().int(),
  output_tokens_details: z.strictObject({ reasoning_tokens: z.number().int() }),
  total_tokens: z.number().int(),
});

const functionName = z.string();

const ZToolFilter = z.strictObject({ tool_names: z.array(z.string()).optional(), read_only: z.boolean().optional() });

/** An `mcp` tool as the response gives it back: its headers' names only. */
const ZMcpToolObject = z.strictObject({
  type: z.literal("mcp"),
  server_label: z.string(),
  server_url: z.string().nullable(),
  allowed_tools: z.union([z.array(z.string()), ZToolFilter]).nullable(),
  require_approval: z.union([z.enum(["always", "never"]), z.strictObject({ always: ZToolFilter.optional(), never: ZToolFilter.optional() })]),
  headers: z.record(z.string(), z.string()).nullable().describe("Each value `<redacted>`"),
  server_description: z.string().nullable(),
});

/** The Response object the gateway builds from what is stored (every field of OpenAI's). */
export const ZResponseObject = z.strictObject({
  id: z.string(),
  object: z.literal("response"),
  created_at: unixSeconds,
  completed_at: unixSeconds.nullable(),
  status: z.enum(["queued", "in_progress", "completed", "incomplete", "failed", "cancelled"]),
  background: z.boolean(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  incomplete_details: z.strictObject({ reason: z.enum(["max_output_tokens", "content_filter", "max_tool_calls"]) }).nullable(),
  instructions: z.string().nullable(),
  max_output_tokens: z.number().int().nullable(),
  max_tool_calls: z.number().int().nullable(),
  model: z.string(),
  output: z.array(ZOutputItem),
  parallel_tool_calls: z.boolean(),
  previous_response_id: z.string().nullable(),
  reasoning: z.strictObject({ effort: z.null(), summary: z.null() }).describe("The gateway passes no reasoning settings to nodes"),
  service_tier: z.enum(SERVICE_TIERS),
  store: z.boolean(),
  system_fingerprint: z.string().nullable(),
  temperature: z.number(),
  text: z.strictObject({
    format: z.discriminatedUnion("type", [
      z.strictObject({ type: z.literal("text") }),
      z.strictObject({ type: z.literal("json_object") }),
      z.looseObject({ type: z.literal("json_schema"), name: functionName, schema: z.record(z.string(), z.unknown()), strict: z.boolean().nullable().optional() }),
    ]),
  }),
  tool_choice: z.union([z.enum(["none", "auto", "required"]), z.strictObject({ type: z.literal("function"), name: functionName })]),
  tools: z.array(
    z.discriminatedUnion("type", [
      z.strictObject({
        type: z.literal("function"),
        name: functionName,
        description: z.string().nullable(),
        parameters: z.record(z.string(), z.unknown()).nullable(),
        strict: z.boolean(),
      }),
      ZMcpToolObject,
    ]),
  ),
  top_logprobs: z.number().int(),
  top_p: z.number(),
  truncation: z.enum(["auto", "disabled"]),
  usage: ZResponsesUsage.optional().describe("Absent until the response has finished"),
  user: z.string().optional().describe("Present when the request named one"),
  conversation: z.strictObject({ id: z.string() }).optional().describe("The conversation the response's items were added to, when the request named one"),
  metadata: z.record(z.string(), z.string()),
});

/** GET /v1/responses/{id}/input_items. */
export const ZInputItemsList = listPage(ZStoredInputItem);

/** DELETE /v1/responses/{id}. */
export const ZResponseDeleted = deletedAnswer("response.deleted");
