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

/** An output item of a response: the assistant's message, or a tool call. */
export const ZOutputItem = z.discriminatedUnion("type", [
  z.strictObject({ id: z.string(), type: z.literal("message"), role: z.literal("assistant"), status: itemStatus, content: z.array(ZOutputText) }),
  ZStoredFunctionCall,
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
]);

export const ZResponsesUsage = z.strictObject({
  input_tokens: z.number().int(),
  input_tokens_details: z.strictObject({ cached_tokens: z.number().int(), cache_write_tokens: z.number().int() }),
  output_tokens: z.number().int(),
  output_tokens_details: z.strictObject({ reasoning_tokens: z.number().int() }),
  total_tokens: z.number().int(),
});

const functionName = z.string();

/** The Response object the gateway builds from what is stored (every field of OpenAI's). */
export const ZResponseObject = z.strictObject({
  id: z.string(),
  object: z.literal("response"),
  created_at: unixSeconds,
  completed_at: unixSeconds.nullable(),
  status: z.enum(["queued", "in_progress", "completed", "incomplete", "failed", "cancelled"]),
  background: z.boolean(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  incomplete_details: z.strictObject({ reason: z.enum(["max_output_tokens", "content_filter"]) }).nullable(),
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
    z.strictObject({
      type: z.literal("function"),
      name: functionName,
      description: z.string().nullable(),
      parameters: z.record(z.string(), z.unknown()).nullable(),
      strict: z.boolean(),
    }),
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
