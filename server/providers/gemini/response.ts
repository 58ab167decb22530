// Gemini's generateContent answer -> OpenAI's chat.completion: one choice per candidate, its
// text as `content`, its thoughts as `reasoning_content`, its function calls as `tool_calls`;
// the usage in OpenAI's terms. A prompt Gemini blocked (no candidates, `promptFeedback.blockReason`)
// is a 400 `content_filter` error, as OpenAI's own filter answers.
import { randomUUID } from "node:crypto";
import type { Json } from "../adapter";
import { UpstreamFailure } from "../upstream-failure";
import { answerParts } from "./answer-parts";
import { finishReasonOf } from "./finish-reason";
import type { GeminiResponse } from "./types";
import { usageOf } from "./usage";

export const completionId = (res: GeminiResponse) => `chatcmpl-${res.responseId ?? randomUUID()}`;

export function toCompletion(res: GeminiResponse, model: string): Json {
  const candidates = res.candidates ?? [];
  if (!candidates.length && res.promptFeedback?.blockReason) throw blockedPrompt(res);
  return {
    id: completionId(res),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: candidates.map((candidate, position) => {
      const { text, reasoning, toolCalls } = answerParts(candidate.content?.parts);
      return {
        index: candidate.index ?? position,
        message: {
          role: "assistant",
          content: text || null,
          ...(reasoning && { reasoning_content: reasoning }),
          ...(toolCalls.length && { tool_calls: toolCalls }),
        },
        finish_reason: finishReasonOf(candidate.finishReason, toolCalls.length > 0),
        logprobs: null,
      };
    }),
    usage: usageOf(res.usageMetadata),
  };
}

export function blockedPromptMessage(res: GeminiResponse): string {
  const reason = res.promptFeedback?.blockReason ?? "OTHER";
  const detail = res.promptFeedback?.blockReasonMessage;
  return `The model's provider blocked the prompt (${reason})${detail ? `: ${detail}` : "."}`;
}

function blockedPrompt(res: GeminiResponse): UpstreamFailure {
  const message = blockedPromptMessage(res);
  return new UpstreamFailure("status", message, 400, { error: { message, type: "invalid_request_error", param: "messages", code: "content_filter" } });
}
