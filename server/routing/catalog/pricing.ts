// What a call costs, in exact decimals, from the model's prices.
import type { ModelRow } from "./model-row";
import { Money, money, type Money as MoneyT } from "../../kernel/money";

export type TokenUsage = { inputTokens: number; cachedTokens: number; outputTokens: number; reasoningTokens: number };

const PER_MILLION = new Money(1_000_000);

/**
 * Tokens are priced per million. Cached input tokens are billed at the cache-read price instead
 * of the input price; reasoning tokens (counted inside the output tokens, as OpenAI reports them)
 * at the reasoning price instead of the output price.
 */
export function tokenCost(row: ModelRow, u: TokenUsage): MoneyT {
  const cached = Math.min(u.cachedTokens, u.inputTokens);
  const reasoning = Math.min(u.reasoningTokens, u.outputTokens);
  return money(row.priceInputPer1m)
    .times(u.inputTokens - cached)
    .plus(money(row.priceCacheReadPer1m).times(cached))
    .plus(money(row.priceOutputPer1m).times(u.outputTokens - reasoning))
    .plus(money(row.priceReasoningPer1m).times(reasoning))
    .dividedBy(PER_MILLION);
}
