// The real tokenizer: OpenAI's o200k_base BPE (GPT-4o family) from js-tiktoken. Loaded once,
// when the module is first imported (~0.7 s), so no request pays for it.
import { Tiktoken } from "js-tiktoken/lite";
import o200k_base from "js-tiktoken/ranks/o200k_base";

const encoder = new Tiktoken(o200k_base);

/** Highest token id of o200k_base, special tokens included. */
export const MAX_TOKEN_ID = Math.max(...Object.values(o200k_base.special_tokens));

/** Token ids of `text`; special-token text such as "<|endoftext|>" is encoded as plain text. */
export function encode(text: string): number[] {
  return encoder.encode(text, [], []);
}

export function decode(ids: number[]): string {
  return encoder.decode(ids);
}

export function countTokens(text: string): number {
  return text ? encode(text).length : 0;
}

/** True when every id is a token of the vocabulary. */
export function knownTokens(ids: number[]): boolean {
  return ids.every((id) => decode([id]).length > 0);
}

/**
 * The text of each token, decoded one by one, so that the pieces concatenate to decode(ids).
 * A token that ends inside a multi-byte character is merged with the next ones until the
 * character is complete (the pieces stay valid UTF-8).
 */
export function tokenPieces(ids: number[]): string[] {
  const pieces: string[] = [];
  let pending: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    pending.push(ids[i]!);
    const text = decode(pending);
    if (text.endsWith("\uFFFD") && i < ids.length - 1 && pending.length < 4) continue;
    pieces.push(text);
    pending = [];
  }
  return pieces;
}
