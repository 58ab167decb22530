// The chat completions request (part 2.3 of the API reference), with the OpenAI API's types and
// bounds. Unknown fields are passed on to the node unchanged, as OpenAI-compatible servers
// accept extensions.
import { z } from "zod";

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
