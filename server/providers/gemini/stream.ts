// Gemini's stream (`streamGenerateContent?alt=sse`: each event a GenerateContentResponse holding
// what is new since the last) -> OpenAI chat.completion.chunk payloads. Gemini sends no end
// event: the last event carries the finish reason and the final usage, so the usage chunk is
// sent when the body ends, and the stream is complete only if every candidate had finished.
// A prompt Gemini blocked, or an error event, fails the stream with its message.
import { randomUUID } from "node:crypto";
import type { StreamTranslator } from "../adapter";
import { answerParts } from "./answer-parts";
import { finishReasonOf } from "./finish-reason";
import { blockedPromptMessage } from "./response";
import type { GeminiResponse, GeminiUsage } from "./types";
import { usageOf } from "./usage";

type CandidateState = { calls: number; finished: boolean };

export function geminiStreamTranslator(model: string): StreamTranslator {
  let id: string | undefined;
  const created = Math.floor(Date.now() / 1000);
  const candidates = new Map<number, CandidateState>();
  let usage: GeminiUsage | undefined;
  let done = false;
  let failed = false;

  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra });
  const fail = (message: string) => {
    failed = true;
    return [JSON.stringify({ error: { message } })];
  };

  return {
    get done() {
      return done;
    },
    push(data) {
      if (failed) return [];
      let event: GeminiResponse & { error?: { message?: string } };
      try {
        event = JSON.parse(data) as typeof event;
      } catch {
        return fail("The node sent an unreadable stream event.");
      }
      if (event.error) return fail(event.error.message ?? "The node failed while streaming.");
      id ??= `chatcmpl-${event.responseId ?? randomUUID()}`;
      usage = event.usageMetadata ?? usage;
      if (!event.candidates?.length && event.promptFeedback?.blockReason) return fail(blockedPromptMessage(event));
      const out: string[] = [];
      event.candidates?.forEach((candidate, position) => {
        const index = candidate.index ?? position;
        let state = candidates.get(index);
        const first = !state;
        if (!state) candidates.set(index, (state = { calls: 0, finished: false }));
        const { text, reasoning, toolCalls } = answerParts(candidate.content?.parts, state.calls);
        const delta: Record<string, unknown> = first ? { role: "assistant", content: "" } : {};
        if (reasoning) delta.reasoning_content = reasoning;
        if (text) delta.content = text;
        if (toolCalls.length) delta.tool_calls = toolCalls.map((call, i) => ({ index: state.calls + i, ...call }));
        state.calls += toolCalls.length;
        if (first || reasoning || text || toolCalls.length) out.push(chunk([{ index, delta, finish_reason: null, logprobs: null }]));
        if (candidate.finishReason && !state.finished) {
          state.finished = true;
          out.push(chunk([{ index, delta: {}, finish_reason: finishReasonOf(candidate.finishReason, state.calls > 0), logprobs: null }]));
        }
      });
      return out;
    },
    end() {
      if (failed || !candidates.size || [...candidates.values()].some((c) => !c.finished)) return [];
      done = true;
      return [chunk([], { usage: usageOf(usage) })];
    },
  };
}
