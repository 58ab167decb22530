// What a fine-tuned model answers: the completion it generates (greedy at temperature 0,
// sampled otherwise, seeded by the request), or, for a prompt it learned nothing about, exactly
// what the base model answers.
import { planChat, seedKey, truncate, type ChatPlan, type PlannedChoice } from "./chat-plan";
import { tokenLimit, type ChatRequest } from "./chat-request";
import { generate } from "./fine-tune/generate";
import type { LoadedModel } from "./fine-tune/model";
import { decode } from "./tokenizer";
import { chatUsage, promptTokens } from "./usage";

/** OpenAI's default sampling temperature. */
const DEFAULT_TEMPERATURE = 1;

export function planTuned(req: ChatRequest, model: LoadedModel): ChatPlan {
  const temperature = typeof req.temperature === "number" ? req.temperature : DEFAULT_TEMPERATURE;
  const limit = tokenLimit(req);
  const stops = req.stop == null ? [] : typeof req.stop === "string" ? [req.stop] : req.stop;
  const key = seedKey(req);
  const choices: PlannedChoice[] = [];
  for (let index = 0; index < (req.n ?? 1); index++) {
    const generated = generate(model, req.messages, { temperature, limit, seedKey: `${key}|${index}` });
    if (!generated) return planChat(req); // nothing learned about this prompt: the base model's answer
    const text = decode(generated.ids);
    const out = truncate(text, limit, stops);
    const finishReason = out.text !== text || generated.finished ? "stop" : "length";
    choices.push({ index, content: out.text, finishReason, ids: out.ids, completionTokens: out.ids.length });
  }
  const completion = choices.reduce((sum, c) => sum + c.completionTokens, 0);
  return { choices, usage: chatUsage(promptTokens(req), completion) };
}
