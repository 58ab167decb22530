// local-moderation's classifier: obscenity's English dataset and matcher (with its recommended
// transformers) find the terms in a text, and each term's kind (moderation-terms.ts) scores
// OpenAI's categories. A category's score is the highest its terms give (0 when none matched);
// it is flagged at 0.5 or more. Only text is read: threats without a listed word, self-harm,
// illicit content, minors and graphic violence are not detected, and score 0.
import { englishDataset, englishRecommendedTransformers, RegExpMatcher, type EnglishProfaneWord } from "obscenity";
import { KIND_SCORES, TERM_KINDS } from "./moderation-terms";

export const CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic",
] as const;
export type Category = (typeof CATEGORIES)[number];

export const FLAG_THRESHOLD = 0.5;

const matcher = new RegExpMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });

export type Scores = Record<Category, number>;

/** The terms of the dataset found in `text` (the dataset's own spelling), in order, repeats kept. */
export function matchedTerms(text: string): EnglishProfaneWord[] {
  return matcher
    .getAllMatches(text, true)
    .map((m) => englishDataset.getPayloadWithPhraseMetadata(m).phraseMetadata?.originalWord)
    .filter((w): w is EnglishProfaneWord => w !== undefined);
}

/** The category scores of some texts read together (the text parts of one multi-modal input). */
export function scoreTexts(texts: string[]): Scores {
  const scores = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Scores;
  for (const text of texts) {
    for (const term of matchedTerms(text)) {
      for (const [category, score] of Object.entries(KIND_SCORES[TERM_KINDS[term]])) {
        scores[category as Category] = Math.max(scores[category as Category], score);
      }
    }
  }
  return scores;
}

/**
 * One result in OpenAI's shape. `category_applied_input_types` says honestly what each score was
 * computed from: the text when there was some, never an image (images are not classified).
 */
export function moderationResult(texts: string[]) {
  const scores = scoreTexts(texts);
  const applied: ("text" | "image")[] = texts.length ? ["text"] : [];
  const per = <T>(f: (c: Category) => T) => Object.fromEntries(CATEGORIES.map((c) => [c, f(c)])) as Record<Category, T>;
  const categories = per((c) => scores[c] >= FLAG_THRESHOLD);
  return {
    flagged: CATEGORIES.some((c) => categories[c]),
    categories,
    category_scores: scores,
    category_applied_input_types: per(() => [...applied]),
  };
}
