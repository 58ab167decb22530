// Gemini's finish reasons -> OpenAI's. What Gemini's filters stopped is `content_filter`; a
// natural stop (or a stop sequence) is `stop`, or `tool_calls` when the answer calls functions;
// every other reason (LANGUAGE, OTHER, MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL,
// TOO_MANY_TOOL_CALLS, NO_IMAGE, ...) has no OpenAI name and is `stop`.
import type { GeminiFinishReason } from "./types";

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

const FILTERED = new Set<string>(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION"]);

export function finishReasonOf(reason: GeminiFinishReason | undefined, calledFunctions: boolean): FinishReason {
  if (reason === "MAX_TOKENS") return "length";
  if (reason && FILTERED.has(reason)) return "content_filter";
  return calledFunctions ? "tool_calls" : "stop";
}
