// The simulated language model: plausible-looking English sentences from a fixed word list,
// chosen by a seeded generator. The same seed always gives the same text.
import { countTokens } from "./tokenizer";
import type { Rng } from "./random";

const OPENERS = ["The", "A", "Every", "This", "Our", "Each", "That", "Some", "One", "Any"];
const NOUNS = [
  "model", "gateway", "request", "token", "stream", "answer", "system", "network", "signal", "pattern",
  "garden", "river", "engine", "message", "library", "window", "question", "planet", "archive", "bridge",
  "forest", "record", "journey", "theory", "machine", "harbor", "lantern", "mountain", "circuit", "story",
];
const ADJECTIVES = [
  "quiet", "bright", "careful", "simple", "distant", "steady", "curious", "gentle", "rapid", "clear",
  "ancient", "modern", "hidden", "useful", "patient", "silver", "narrow", "open", "local", "warm",
];
const VERBS = [
  "follows", "shapes", "carries", "explains", "reaches", "builds", "measures", "answers", "connects", "holds",
  "returns", "guides", "describes", "remembers", "crosses", "balances", "observes", "prepares", "finds", "keeps",
];
const ADVERBS = ["slowly", "often", "clearly", "quietly", "always", "rarely", "gently", "simply", "again", "together"];
const PREPOSITIONS = ["across", "beyond", "within", "under", "through", "near", "beside", "toward", "around", "over"];

/** One sentence, e.g. "The quiet model carries a clear signal across the river." */
export function sentence(rng: Rng): string {
  const subject = `${rng.pick(OPENERS)} ${rng.next() < 0.6 ? `${rng.pick(ADJECTIVES)} ` : ""}${rng.pick(NOUNS)}`;
  const object = `${rng.next() < 0.5 ? "a" : "the"} ${rng.next() < 0.5 ? `${rng.pick(ADJECTIVES)} ` : ""}${rng.pick(NOUNS)}`;
  let text = `${subject} ${rng.next() < 0.3 ? `${rng.pick(ADVERBS)} ` : ""}${rng.pick(VERBS)} ${object}`;
  if (rng.next() < 0.6) text += ` ${rng.pick(PREPOSITIONS)} the ${rng.pick(NOUNS)}`;
  return `${text}${rng.next() < 0.1 ? "!" : "."}`;
}

/** Whole sentences until the text holds at least `minTokens` tokens. */
export function generateText(rng: Rng, minTokens: number): string {
  const sentences: string[] = [];
  let tokens = 0;
  while (tokens < minTokens) {
    const s = sentence(rng);
    tokens += countTokens(sentences.length ? ` ${s}` : s);
    sentences.push(s);
  }
  return sentences.join(" ");
}

/** A plausible reply: whole sentences, about 20 to 60 tokens. */
export function replyText(rng: Rng): string {
  return generateText(rng, rng.int(18, 48));
}

/** A short phrase of `words` words, for generated string values. */
export function phrase(rng: Rng, words: number): string {
  const pool = [...ADJECTIVES, ...NOUNS];
  return Array.from({ length: words }, () => rng.pick(pool)).join(" ");
}
