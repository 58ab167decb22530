// Generation with a fine-tuned model: token by token until END or the limit, greedy at
// temperature 0, else sampled with a seeded generator. It first decides whether the model
// learned anything about the prompt; when it did not, the caller answers as the base model.
import { seededRng } from "../random";
import { BOS, END, promptContext, tokenFeatures, type Feature, type PromptMessage } from "./features";
import { predict, type LoadedModel } from "./model";

/** Below this probability for the first token, the model is taken to know nothing of the prompt. */
export const MIN_FIRST_TOKEN_PROBABILITY = 0.5;
/** Without the exact prompt known, at least this share of its words must have been seen in training. */
export const MIN_KNOWN_WORDS = 0.5;
/** Tokens generated at most when the request gives no limit. */
export const DEFAULT_MAX_TOKENS = 512;

export type Generated = { ids: number[]; finished: boolean };

function pick(probs: Float32Array, best: number, temperature: number, random: () => number): number {
  if (temperature <= 0) return best;
  // p^(1/T), renormalised, sampled
  let sum = 0;
  const weights = new Float64Array(probs.length);
  for (let c = 0; c < probs.length; c++) sum += weights[c] = Math.pow(probs[c]!, 1 / temperature);
  let r = random() * sum;
  for (let c = 0; c < probs.length; c++) {
    r -= weights[c]!;
    if (r <= 0) return c;
  }
  return best;
}

/** Whether training saw this prompt, or enough of its words to have learned something of it. */
function knowsPrompt(m: LoadedModel, features: Feature[]): boolean {
  const [exact, ...rest] = features.filter((f) => f.fromPrompt && f.kind !== "promptPrevious");
  if (exact && m.rowOf.has(exact.key)) return true;
  const words = rest.filter((f) => f.kind === "wordPosition");
  return words.length > 0 && words.filter((f) => m.rowOf.has(f.key)).length >= words.length * MIN_KNOWN_WORDS;
}

/**
 * The completion of `messages`, or null when the model learned nothing about this prompt (no
 * feature of the prompt known, or its first token less likely than MIN_FIRST_TOKEN_PROBABILITY).
 */
export function generate(m: LoadedModel, messages: PromptMessage[], opts: { temperature: number; limit: number; seedKey: string }): Generated | null {
  const ctx = promptContext(messages);
  const features = tokenFeatures(ctx, 0, BOS, BOS);
  if (!knowsPrompt(m, features)) return null;
  const first = predict(m, features);
  if (first.probs[first.best]! < MIN_FIRST_TOKEN_PROBABILITY) return null;
  const rng = seededRng(opts.seedKey);
  const limit = Math.min(opts.limit, DEFAULT_MAX_TOKENS);
  const ids: number[] = [];
  let step = first;
  while (ids.length < limit) {
    const token = m.vocab[pick(step.probs, step.best, opts.temperature, rng.next)]!;
    if (token === END) return { ids, finished: true };
    ids.push(token);
    step = predict(m, tokenFeatures(ctx, ids.length, ids.at(-1) ?? BOS, ids.at(-2) ?? BOS));
  }
  return { ids, finished: false };
}
