// POST /v1/chat/completions (part 2.3 of the API reference): the request, with the OpenAI API's
// types and bounds (unknown fields are passed on to the node unchanged, as OpenAI-compatible
// servers accept extensions), and the completion it is answered with.
import { z } from "zod";
import { unixSeconds } from "../../kernel/answer-schemas";
import { SERVICE_TIERS } from "./completion-shape";

const text = z.string();
const contentPart = z.looseObject({ type: z.string().min(1) });
const content = z.union([text, z.array(contentPart).min(1)]);

const toolCall = z.looseObject({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

export const ZMessage = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("system"), content, name: z.string().optional() }),
  z.looseObject({ role: z.literal("developer"), content, name: z.string().optional() }),
  z.looseObject({ role: z.literal("user"), content, name: z.string().optional() }),
  z.looseObject({
    role: z.literal("assistant"),
    content: content.nullable().optional(),
    name: z.string().optional(),
    refusal: z.string().nullable().optional(),
    tool_calls: z.array(toolCall).optional(),
  }),
  z.looseObject({ role: z.literal("tool"), content, tool_call_id: z.string().min(1) }),
]);
export type ChatMessage = z.infer<typeof ZMessage>;

const functionName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, underscores or dashes");

export const ZTool = z.object({
  type: z.literal("function"),
  function: z.looseObject({
    name: functionName,
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

export const ZToolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: functionName }) }),
]);

export const ZResponseFormat = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    json_schema: z.looseObject({ name: functionName, schema: z.record(z.string(), z.unknown()).optional(), strict: z.boolean().nullable().optional() }),
  }),
]);

export const ZChatCompletionRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ZMessage).min(1, "must contain at least one message"),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  seed: z.number().int().nullable().optional(),
  max_tokens: z.number().int().min(1).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).nullable().optional(),
  n: z.number().int().min(1).max(128).nullable().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullable().optional(),
  logit_bias: z.record(z.string(), z.number().min(-100).max(100)).nullable().optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  response_format: ZResponseFormat.optional(),
  tools: z.array(ZTool).max(128).optional(),
  tool_choice: ZToolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  user: z.string().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
});
export type ChatCompletionRequest = z.infer<typeof ZChatCompletionRequest>;

// ---- The answer ----

const answeredToolCall = z.looseObject({
  id: z.string(),
  type: z.literal("function"),
  function: z.looseObject({ name: z.string(), arguments: z.string().describe("JSON text of the arguments, as the model wrote it") }),
});

const ZAssistantMessage = z.looseObject({
  role: z.literal("assistant"),
  content: z.string().nullable(),
  refusal: z.string().nullable(),
  name: z.string().optional(),
  reasoning_content: z.string().nullable().optional(),
  tool_call_id: z.string().optional(),
  tool_calls: z.array(answeredToolCall).optional(),
});

const tokenLogprob = { token: z.string(), logprob: z.number(), bytes: z.array(z.number().int()).nullable() };
const ZTokenLogprob = z.looseObject({ ...tokenLogprob, top_logprobs: z.array(z.looseObject(tokenLogprob)) });

/** Log probabilities of a choice, as the node gives them: each list null when it has none. */
const ZChoiceLogprobs = z.looseObject({ content: z.array(ZTokenLogprob).nullable(), refusal: z.array(ZTokenLogprob).nullable() });

const ZChoice = z.looseObject({
  index: z.number().int(),
  finish_reason: z.enum(["stop", "length", "tool_calls", "content_filter"]),
  message: ZAssistantMessage,
  logprobs: ZChoiceLogprobs.nullable(),
});

export const ZChatUsage = z.looseObject({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().int(), audio_tokens: z.number().int() }),
  completion_tokens_details: z.looseObject({
    reasoning_tokens: z.number().int(),
    audio_tokens: z.number().int(),
    accepted_prediction_tokens: z.number().int(),
    rejected_prediction_tokens: z.number().int(),
  }),
});

/** The node's completion, with the gateway's model id and every field of part 2.3 present (completion-shape.ts). */
export const ZChatCompletion = z.looseObject({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: unixSeconds,
  model: z.string().describe("The gateway's model id (whatever the node calls it)"),
  service_tier: z.enum(SERVICE_TIERS).describe("The node's when it is one of these, else `default`"),
  system_fingerprint: z.string().describe("The node's, or one the gateway derives from the model when the node sends none"),
  choices: z.array(ZChoice),
  usage: ZChatUsage,
});
