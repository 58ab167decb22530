// What the gateway guarantees in a chat.completion it returns, whatever the node sent.
import { createHash } from "node:crypto";
import type { TokenUsage } from "../../routing/catalog/pricing";

type Json = Record<string, unknown>;

export type OpenAIUsage = {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } & Json;
  completion_tokens_details?: { reasoning_tokens?: number } & Json;
};

export function tokenUsage(usage: OpenAIUsage | null | undefined): TokenUsage {
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: usage?.prompt_tokens_details?.cache_write_tokens ?? 0,
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

/** The service tiers an answer may name (OpenAI's, less the request-only `fast`). */
export const SERVICE_TIERS = ["auto", "default", "flex", "scale", "priority"] as const;

/** A fingerprint for nodes that send none: stable per model, as a node's is per configuration (made once per model). */
const fingerprints = new Map<string, string>();
function fingerprintOf(modelId: string): string {
  let fp = fingerprints.get(modelId);
  if (!fp) fingerprints.set(modelId, (fp = `fp_${createHash("sha256").update(modelId).digest("hex").slice(0, 10)}`));
  return fp;
}

/** A token's logprob with every field OpenAI's has (`bytes` null, no alternatives, when the node gave none). */
function tokenLogprob(t: Json, top: boolean): Json {
  const alternatives = Array.isArray(t.top_logprobs) ? (t.top_logprobs as Json[]) : [];
  return { ...t, bytes: t.bytes ?? null, ...(top && { top_logprobs: alternatives.map((a) => tokenLogprob(a, false)) }) };
}

const tokenList = (list: unknown) => (Array.isArray(list) ? (list as Json[]).map((t) => tokenLogprob(t, true)) : null);

/** A choice's logprobs with both lists OpenAI's object has (null when the node gave none). */
function logprobsOf(logprobs: unknown): Json | null {
  if (typeof logprobs !== "object" || logprobs === null) return null;
  const l = logprobs as Json;
  return { ...l, content: tokenList(l.content), refusal: tokenList(l.refusal) };
}

/** The node's completion with the gateway's model id and every field of part 2.3 present. */
export function normalizeCompletion(body: Json, modelId: string): Json {
  const choices = Array.isArray(body.choices) ? (body.choices as Json[]) : [];
  return {
    ...body,
    object: "chat.completion",
    model: modelId,
    service_tier: (SERVICE_TIERS as readonly unknown[]).includes(body.service_tier) ? body.service_tier : "default",
    system_fingerprint: typeof body.system_fingerprint === "string" ? body.system_fingerprint : fingerprintOf(modelId),
    choices: choices.map((c) => {
      const message = (c.message ?? {}) as Json;
      return { ...c, logprobs: logprobsOf(c.logprobs), message: { ...message, role: "assistant", content: message.content ?? null, refusal: message.refusal ?? null } };
    }),
    usage: fullUsage(body.usage as OpenAIUsage | undefined),
  };
}
