// Anthropic's usage and stop reasons in OpenAI's terms. Anthropic counts cache reads and cache
// writes apart from `input_tokens`; OpenAI's `prompt_tokens` holds every input token, with the
// cached ones named in `prompt_tokens_details` (what the gateway bills cache reads and writes on).
import type { MessageDeltaUsage, StopReason, Usage } from "@anthropic-ai/sdk/resources/messages";

/** A chat completion's usage, as the relay and the meter read it. */
export type ChatUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
};

/** The counts a stream learns piece by piece (message_start, then message_delta). */
export type UsageCounts = Partial<Pick<Usage, "input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens" | "output_tokens_details">>;

/** Later counts win where they are given: message_delta's are cumulative, and null means "not said". */
export function mergeUsage(seen: UsageCounts, update: Partial<MessageDeltaUsage> | UsageCounts | null | undefined): UsageCounts {
  const merged: UsageCounts = { ...seen };
  for (const [key, value] of Object.entries(update ?? {})) {
    if (value !== null && value !== undefined && key in KEPT) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}

const KEPT = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 1, cache_creation_input_tokens: 1, output_tokens_details: 1 };

export function chatUsage(u: UsageCounts): ChatUsage {
  const read = u.cache_read_input_tokens ?? 0;
  const written = u.cache_creation_input_tokens ?? 0;
  const prompt = (u.input_tokens ?? 0) + read + written;
  const completion = u.output_tokens ?? 0;
  const thinking = u.output_tokens_details?.thinking_tokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: read, cache_write_tokens: written },
    // Anthropic's output_tokens include the thinking, as OpenAI's completion_tokens include reasoning.
    ...(typeof thinking === "number" && { completion_tokens_details: { reasoning_tokens: thinking } }),
  };
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

/** Anthropic's stop reason as OpenAI's finish reason. */
export function finishReasonOf(stop: StopReason | null | undefined): FinishReason {
  switch (stop) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      // end_turn, stop_sequence, and pause_turn (a server tool's turn, which has no OpenAI counterpart)
      return "stop";
  }
}
