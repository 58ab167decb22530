// A Converse answer as OpenAI's chat.completion, through the Anthropic translator's (its blocks
// are Anthropic's by another name): text as the content, reasoning as `reasoning_content` and,
// with its signature, as `thinking_blocks` (so a later turn sends it back, converse-messages.ts),
// tool uses as tool calls (the JSON tool's input as the content), the stop reason as the finish
// reason, the usage in OpenAI's terms.
import { randomUUID } from "node:crypto";
import type { ContentBlock, Message, StopReason } from "@anthropic-ai/sdk/resources/messages";
import type { Json } from "../adapter";
import { completionOf as anthropicCompletion } from "../anthropic/response";
import type { ConverseContentBlock, ConverseResponse } from "./types";

export const completionId = () => `chatcmpl-${randomUUID()}`;

function blockOf(block: ConverseContentBlock): ContentBlock[] {
  if ("text" in block) return [{ type: "text", text: block.text, citations: null }];
  if ("toolUse" in block) return [{ type: "tool_use", id: block.toolUse.toolUseId, name: block.toolUse.name, input: block.toolUse.input } as ContentBlock];
  if (!("reasoningContent" in block)) return [];
  const r = block.reasoningContent;
  return "reasoningText" in r ? [{ type: "thinking", thinking: r.reasoningText.text, signature: r.reasoningText.signature ?? "" }] : [{ type: "redacted_thinking", data: r.redactedContent }];
}

/** Bedrock's guardrails and filters stop as Anthropic's refusal does (content_filter). */
const stopOf = (stop: string | undefined) => (stop === "guardrail_intervened" || stop === "content_filtered" ? "refusal" : stop) as StopReason;

/** `model` is the node's name for it (the request's), which the gateway replaces with its own id. */
export function completionOf(res: ConverseResponse, model: string): Json {
  const u = res.usage;
  const message = {
    id: randomUUID(),
    content: (res.output?.message?.content ?? []).flatMap(blockOf),
    stop_reason: stopOf(res.stopReason),
    usage: { input_tokens: u?.inputTokens ?? 0, output_tokens: u?.outputTokens ?? 0, cache_read_input_tokens: u?.cacheReadInputTokens ?? 0, cache_creation_input_tokens: u?.cacheWriteInputTokens ?? 0 },
  } as unknown as Message;
  return anthropicCompletion(message, model);
}
