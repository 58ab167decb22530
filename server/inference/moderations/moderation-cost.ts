// What a moderation call costs, in exact decimals: its text's input tokens at input_per_1m and
// its images at per_image (free for the built-in model, whose prices are all 0). The most it can
// cost is reserved before the node is called.
import { money, Money } from "../../kernel/money";
import type { ModelRow } from "../../routing/catalog/model-row";
import type { ModerationInput } from "./moderation-input";

const PER_MILLION = new Money(1_000_000);
/** Tokens a node may add around each text (as for embeddings). */
const TEXT_ALLOWANCE = 8;

/**
 * The most input tokens: per text its UTF-8 bytes plus an allowance (a byte-level tokenizer never
 * makes more tokens than bytes), at most the model's context length each.
 */
export function maxModerationTokens(row: Pick<ModelRow, "contextLength">, input: ModerationInput): number {
  return input.texts.reduce((sum, text) => sum + Math.min(Buffer.byteLength(text) + TEXT_ALLOWANCE, row.contextLength), 0);
}

export function moderationCost(row: ModelRow, inputTokens: number, images: number): Money {
  return money(row.priceInputPer1m).times(inputTokens).dividedBy(PER_MILLION).plus(money(row.pricePerImage).times(images));
}

export const maxModerationCost = (row: ModelRow, input: ModerationInput): Money => moderationCost(row, maxModerationTokens(row, input), input.images);
