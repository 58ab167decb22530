// Token usage, counted with the real tokenizer. Prompt counting follows OpenAI's chat format
// closely (3 tokens of framing per message, the role, the content, 3 tokens priming the reply);
// it is not guaranteed to equal OpenAI's count for the same request.
import { contentText, type ChatRequest } from "./chat-request";
import { countTokens } from "./tokenizer";

export type Usage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: {
    reasoning_tokens: number;
    audio_tokens: number;
    accepted_prediction_tokens: number;
    rejected_prediction_tokens: number;
  };
};

export function promptTokens(req: ChatRequest): number {
  let total = 3;
  for (const m of req.messages) {
    total += 3 + countTokens(m.role) + countTokens(contentText(m.content));
    if (m.name) total += 1 + countTokens(m.name);
    for (const call of m.tool_calls ?? []) {
      total += 3 + countTokens(call.function?.name ?? "") + countTokens(call.function?.arguments ?? "");
    }
  }
  if (req.tools?.length) total += 9 + countTokens(JSON.stringify(req.tools.map((t) => t.function)));
  if (req.response_format?.type === "json_schema") total += countTokens(JSON.stringify(req.response_format.json_schema));
  return total;
}

export function chatUsage(prompt: number, completion: number): Usage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}
