// Converse's usage and stop reasons in OpenAI's terms, through Anthropic's mapping (which they
// mirror): Converse counts cache reads and writes apart from `inputTokens` as Anthropic does, so
// OpenAI's prompt_tokens is their sum, with the cached ones named as the catalog's cache prices
// read them.
import { chatUsage, finishReasonOf as anthropicFinish, type ChatUsage, type FinishReason } from "../anthropic/usage";
import type { ConverseUsage } from "./types";

export function usageOf(u: ConverseUsage | undefined): ChatUsage {
  return chatUsage({
    input_tokens: u?.inputTokens ?? 0,
    output_tokens: u?.outputTokens ?? 0,
    cache_read_input_tokens: u?.cacheReadInputTokens ?? 0,
    cache_creation_input_tokens: u?.cacheWriteInputTokens ?? 0,
  });
}

/** Converse's stop reason: Anthropic's names, and Bedrock's guardrails and filters as content_filter. */
export function finishReasonOf(stop: string | undefined): FinishReason {
  if (stop === "guardrail_intervened" || stop === "content_filtered") return "content_filter";
  return anthropicFinish(stop as Parameters<typeof anthropicFinish>[0]);
}
