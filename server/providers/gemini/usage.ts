// Gemini's usageMetadata -> OpenAI's usage. Gemini counts the thoughts apart from the answer
// (`thoughtsTokenCount`) and OpenAI counts reasoning inside the completion, so completion_tokens
// is candidates + thoughts and reasoning_tokens the thoughts; `promptTokenCount` already holds
// the cached tokens (`cachedContentTokenCount`), as OpenAI's prompt_tokens does.
// `toolUsePromptTokenCount` (Gemini's own tools, which this adapter never enables) is not counted.
import type { GeminiUsage } from "./types";

export type Usage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
};

export function usageOf(meta: GeminiUsage | undefined): Usage {
  const prompt = meta?.promptTokenCount ?? 0;
  const thoughts = meta?.thoughtsTokenCount ?? 0;
  const completion = (meta?.candidatesTokenCount ?? 0) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: meta?.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}
