// OpenAI's `reasoning_effort` -> Gemini's thinkingConfig, with the thoughts' summaries asked for
// (they come back as `reasoning_content`). Gemini 3 models take a thinking level, earlier ones
// a token budget (a level sent to a Gemini 2.5 model is refused); which one is decided by the
// model's name. Thinking cannot be turned off on Gemini 3 (`none` is its minimal level), nor on
// 2.5 Pro (whose budget of 0 the node refuses, and its 400 reaches the client).
import type { GeminiGenerationConfig, ThinkingLevel } from "./types";

type ThinkingConfig = NonNullable<GeminiGenerationConfig["thinkingConfig"]>;

const LEVELS: Record<string, ThinkingLevel> = { none: "minimal", minimal: "minimal", low: "low", medium: "medium", high: "high", xhigh: "high" };
const BUDGETS: Record<string, number> = { none: 0, minimal: 512, low: 1024, medium: 8192, high: 24576, xhigh: 32768 };

export function thinkingConfig(effort: string, model: string): ThinkingConfig | undefined {
  if (/^(models\/)?gemini-3/.test(model)) {
    const level = LEVELS[effort];
    return level && { thinkingLevel: level, includeThoughts: true };
  }
  const budget = BUDGETS[effort];
  if (budget === undefined) return undefined;
  return budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true };
}
