// POST /v1/messages and /v1/messages/count_tokens: Anthropic's Messages API, as its clients (the
// official SDKs, coding agents) send it. Loose on purpose: fields a node cannot use are accepted
// and dropped in translation (docs/PROVIDERS.md lists them), so a newer client never gets a 400
// for a field the gateway does not know. What Anthropic itself refuses (an unknown block type, a
// bad tool name, ...) is refused here too, by request-rules.ts. The answer's schema is Anthropic's Message.
import { z } from "zod";
import { anthropicRules } from "./request-rules";

const cacheControl = z.looseObject({ type: z.string() }).nullable().optional();

const textBlock = z.looseObject({ type: z.literal("text"), text: z.string(), cache_control: cacheControl });
const imageBlock = z.looseObject({
  type: z.literal("image"),
  source: z.union([
    z.looseObject({ type: z.literal("base64"), media_type: z.string().min(1), data: z.string().min(1) }),
    z.looseObject({ type: z.literal("url"), url: z.string().min(1) }),
  ]),
  cache_control: cacheControl,
});
const toolUseBlock = z.looseObject({ type: z.literal("tool_use"), id: z.string().min(1), name: z.string().min(1), input: z.unknown(), cache_control: cacheControl });
const toolResultBlock = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControl,
});
const thinkingBlock = z.looseObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string().optional() });
/** Any other block (documents, redacted thinking, server tools' blocks): kept as sent, dropped in translation; its type is checked by request-rules.ts. */
const otherBlock = z.looseObject({ type: z.string().min(1) });

export const ZContentBlock = z.union([textBlock, imageBlock, toolUseBlock, toolResultBlock, thinkingBlock, otherBlock]);
export type ContentBlockParam = z.infer<typeof ZContentBlock>;

const content = z.union([z.string(), z.array(ZContentBlock)]);

export const ZMessageParam = z.looseObject({ role: z.enum(["user", "assistant", "system"]), content });
export type MessageParam = z.infer<typeof ZMessageParam>;

// A server tool (a `type` such as `web_search_20250305`) may have no name (`mcp_toolset`).
const ZTool = z.looseObject({
  name: z.string().optional(),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
  type: z.string().optional(),
  cache_control: cacheControl,
});

const ZToolChoice = z.looseObject({ type: z.enum(["auto", "any", "tool", "none"]), name: z.string().optional(), disable_parallel_tool_use: z.boolean().optional() });

const ZSystem = z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]);

const common = {
  model: z.string().min(1),
  messages: z.array(ZMessageParam).min(1, "must contain at least one message"),
  system: ZSystem.optional(),
  tools: z.array(ZTool).optional(),
  tool_choice: ZToolChoice.optional(),
  thinking: z.looseObject({ type: z.string(), budget_tokens: z.number().int().optional() }).optional(),
};

export const ZMessageCreate = z.looseObject({
  ...common,
  max_tokens: z.number().int().min(1),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  metadata: z.looseObject({ user_id: z.string().nullable().optional() }).optional(),
}).superRefine(anthropicRules);
export type MessageCreate = z.infer<typeof ZMessageCreate>;

export const ZCountTokens = z.looseObject(common).superRefine(anthropicRules);
export type CountTokens = z.infer<typeof ZCountTokens>;

// The answers.

// Loose: an `anthropic` node's answers pass through with whatever fields Anthropic adds.
const ZUsage = z.looseObject({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_creation_input_tokens: z.number().int().nullable(),
  cache_read_input_tokens: z.number().int().nullable(),
});

export const ZMessage = z.looseObject({
  id: z.string(),
  type: z.literal("message"),
  role: z.literal("assistant"),
  model: z.string(),
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.enum(["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"]).nullable(),
  stop_sequence: z.string().nullable(),
  usage: ZUsage,
});

export const ZTokenCount = z.object({ input_tokens: z.number().int() });
