// OpenAI's `reasoning_effort` as Anthropic's extended thinking with a token budget. The budget
// counts inside `max_tokens` (as OpenAI's reasoning counts inside max_completion_tokens) and must
// be at least 1,024 and below `max_tokens`: it is lowered to fit, and thinking is left off when
// `max_tokens` leaves no room for the minimum.
import type { ThinkingConfigParam } from "@anthropic-ai/sdk/resources/messages";

export const THINKING_BUDGETS: Record<string, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768 };
const MIN_BUDGET = 1024;

export function thinkingOf(effort: unknown, maxTokens: number): ThinkingConfigParam | undefined {
  if (effort === "none") return { type: "disabled" };
  const wanted = typeof effort === "string" ? THINKING_BUDGETS[effort] : undefined;
  if (!wanted) return undefined;
  const budget = Math.min(wanted, maxTokens - 1);
  return budget >= MIN_BUDGET ? { type: "enabled", budget_tokens: budget } : undefined;
}
