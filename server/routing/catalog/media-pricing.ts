// What audio and image calls cost, in exact decimals, from the model's media prices.
import type { ModelRow } from "./model-row";
import { Money, money, type Money as MoneyT } from "../../kernel/money";

const PER_MILLION = new Money(1_000_000);

/** Characters of a text, counted as Unicode code points (an emoji is one character). */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Speech: `per_1m_chars` × characters ÷ 1,000,000. */
export function characterCost(row: ModelRow, characters: number): MoneyT {
  return money(row.pricePer1mChars).times(characters).dividedBy(PER_MILLION);
}

/** Transcription and translation: `per_audio_second` × the decoded duration (a decimal string). */
export function audioSecondsCost(row: ModelRow, seconds: string): MoneyT {
  return money(row.pricePerAudioSecond).times(money(seconds));
}

/** Images: `per_image` × images returned. */
export function imageCost(row: ModelRow, images: number): MoneyT {
  return money(row.pricePerImage).times(images);
}

/** The prices a video job was created under (kept on the job, so a later price change does not touch it). */
export type VideoPrice = { perVideoSecond: string; multiplier: string; fps: number };

/** Places of the stored amounts (numeric(38,18)): video costs are rounded half-even to 10^-18 USD. */
const VIDEO_COST_PLACES = 18;

/**
 * Video: seconds × fps ÷ 24 × `per_video_second` × the size's `price_multiplier`, in exact
 * decimals, rounded half-even to 18 places (the ÷ 24 can leave an endless fraction).
 */
export function videoCost(price: VideoPrice, seconds: MoneyT | string | number): MoneyT {
  return money(seconds)
    .times(price.fps)
    .times(money(price.perVideoSecond))
    .times(money(price.multiplier))
    .dividedBy(24)
    .toDecimalPlaces(VIDEO_COST_PLACES, Money.ROUND_HALF_EVEN);
}

// Upper bounds, from the request alone, of what a media call can cost (reserved before the node is
// called). Speech and transcription are known exactly beforehand; images by the count asked for.

/** Speech: the input's characters are what is billed. */
export function maxSpeechCost(row: ModelRow, input: string): MoneyT {
  return characterCost(row, characterCount(input));
}

/** Images: `n` images at most (a node returning more is billed for `n`). */
export function maxImageCost(row: ModelRow, n: number | null | undefined): MoneyT {
  return imageCost(row, Math.max(1, Math.floor(n ?? 1)));
}
