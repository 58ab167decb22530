// What the gateway guarantees in a chat.completion it returns, whatever the node sent.
import type { TokenUsage } from "../../routing/catalog/pricing";

type Json = Record<string, unknown>;

export type OpenAIUsage = {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } & Json;
  completion_tokens_details?: { reasoning_tokens?: number } & Json;
};

export function tokenUsage(usage: OpenAIUsage | null | undefined): TokenUsage {
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

export function fullUsage(usage: OpenAIUsage | null | undefined): Json {
  const u = tokenUsage(usage);
  return {
    ...usage,
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: usage?.total_tokens ?? u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens, audio_tokens: 0, ...usage?.prompt_tokens_details },
    completion_tokens_details: {
      reasoning_tokens: u.reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
      ...usage?.completion_tokens_details,
    },
  };
}

/** The node's completion with the gateway's model id and every field of part 2.3 present. */
export function normalizeCompletion(body: Json, modelId: string): Json {
  const choices = Array.isArray(body.choices) ? (body.choices as Json[]) : [];
  return {
    ...body,
    object: "chat.completion",
    model: modelId,
    service_tier: body.service_tier ?? "default",
    system_fingerprint: body.system_fingerprint ?? null,
    choices: choices.map((c) => {
      const message = (c.message ?? {}) as Json;
      return { ...c, logprobs: c.logprobs ?? null, message: { ...message, role: "assistant", content: message.content ?? null, refusal: message.refusal ?? null } };
    }),
    usage: fullUsage(body.usage as OpenAIUsage | undefined),
  };
}
