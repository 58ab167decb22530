// What a call costs, in exact decimals, from the model's prices.
import type { ModelRow } from "./model-row";
import { Money, money, type Money as MoneyT } from "../../kernel/money";
import { bodySizeOf } from "../../kernel/body-size";

export type TokenUsage = {
  /** Every input token, cache reads and cache writes included (as OpenAI's prompt_tokens counts them). */
  inputTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  cachedTokens: number;
  /** Input tokens written to the provider's prompt cache (Anthropic's cache_creation_input_tokens). */
  cacheWriteTokens?: number;
  outputTokens: number;
  reasoningTokens: number;
  /** The node reported no usage: these are the gateway's own count. */
  estimated?: boolean;
};

const PER_MILLION = new Money(1_000_000);
const ZERO = new Money(0);

type Prices = {
  input: MoneyT;
  cacheRead: MoneyT;
  /** The model's cache-write price, or its input price when none is set (never free by omission). */
  cacheWrite: MoneyT;
  output: MoneyT;
  reasoning: MoneyT;
  /** The dearest price of an input token, and of an output token: what a reservation counts. */
  maxInput: MoneyT;
  maxOutput: MoneyT;
};

/** Each catalog row's prices, parsed once (a row is replaced, never changed, when its prices are). */
const parsed = new WeakMap<ModelRow, Prices>();

function pricesOf(row: ModelRow): Prices {
  let p = parsed.get(row);
  if (!p) {
    const input = money(row.priceInputPer1m);
    const cacheRead = money(row.priceCacheReadPer1m);
    const written = money(row.priceCacheWritePer1m);
    const cacheWrite = written.isZero() ? input : written;
    const output = money(row.priceOutputPer1m);
    const reasoning = money(row.priceReasoningPer1m);
    p = { input, cacheRead, cacheWrite, output, reasoning, maxInput: Money.max(input, cacheRead, cacheWrite), maxOutput: Money.max(output, reasoning) };
    parsed.set(row, p);
  }
  return p;
}

/** `price` × `tokens`, added to `sum` (a term of no tokens costs no decimal arithmetic). */
const addTokens = (sum: MoneyT, price: MoneyT, tokens: number) => (tokens ? sum.plus(price.times(tokens)) : sum);

/**
 * Tokens are priced per million. Input tokens read from the prompt cache are billed at the
 * cache-read price and those written to it at the cache-write price, instead of the input price;
 * reasoning tokens (counted inside the output tokens, as OpenAI reports them) at the reasoning
 * price instead of the output price.
 */
export function tokenCost(row: ModelRow, u: TokenUsage): MoneyT {
  const p = pricesOf(row);
  const cached = Math.min(u.cachedTokens, u.inputTokens);
  const written = Math.min(u.cacheWriteTokens ?? 0, u.inputTokens - cached);
  const reasoning = Math.min(u.reasoningTokens, u.outputTokens);
  let sum = addTokens(ZERO, p.input, u.inputTokens - cached - written);
  sum = addTokens(sum, p.cacheRead, cached);
  sum = addTokens(sum, p.cacheWrite, written);
  sum = addTokens(sum, p.output, u.outputTokens - reasoning);
  sum = addTokens(sum, p.reasoning, reasoning);
  return sum.dividedBy(PER_MILLION);
}

// Upper bounds, from the request alone, of what a call can cost: what the ledger reserves before
// the node is called (and what an x402 `upto` payment would ask for). Cheap (no tokenizer) and
// exact decimals.

/** Tokens the chat template adds around the messages (role markers, the reply's priming) beyond their JSON. */
const PROMPT_ALLOWANCE = 16;
const MESSAGE_ALLOWANCE = 8;
const TEXT_PARTS = new Set(["text", "input_text", "output_text", "refusal"]);

type ChatBody = Record<string, unknown> & { messages?: unknown };

function hasNonTextPart(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false;
  return messages.some((m) => {
    const content = (m as { content?: unknown } | null)?.content;
    return Array.isArray(content) && content.some((p) => !TEXT_PARTS.has(String((p as { type?: unknown } | null)?.type)));
  });
}

/**
 * The most input tokens a chat request can count. Byte-level tokenizers never make more tokens than
 * UTF-8 bytes, and the request's JSON holds every byte of the messages, tools and schemas that the
 * prompt is made of, plus a per-message allowance for the template. Its size is the body's as the
 * client sent it when the transport noted it (kernel/body-size.ts), else the body's serialised. Images, audio and files count
 * tokens unrelated to their bytes: a request with such a part may fill the model's context. Never
 * more than the context length (a model cannot read more).
 */
export function maxPromptTokens(row: Pick<ModelRow, "contextLength">, body: ChatBody): number {
  if (hasNonTextPart(body.messages)) return row.contextLength;
  const messages = Array.isArray(body.messages) ? body.messages.length : 0;
  const bound = (bodySizeOf(body) ?? Buffer.byteLength(JSON.stringify(body))) + PROMPT_ALLOWANCE + MESSAGE_ALLOWANCE * messages;
  return Math.min(bound, row.contextLength);
}

const positive = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/** The most output tokens: the request's limit (the larger, if both are given), else the model's; times `n` choices. */
export function maxCompletionTokens(row: Pick<ModelRow, "maxOutputTokens">, body: ChatBody): number {
  const asked = Math.max(positive(body.max_completion_tokens), positive(body.max_tokens));
  return (asked || row.maxOutputTokens) * Math.max(1, positive(body.n));
}

/** The most tokens (input and output) a chat request can use: what tokens-per-minute limits count up front. */
export function maxChatTokens(row: Pick<ModelRow, "contextLength" | "maxOutputTokens">, body: ChatBody): number {
  return maxPromptTokens(row, body) + maxCompletionTokens(row, body);
}

/** Chat completions and responses: every input token at the dearer input price, every output token at the dearer output price. */
export function maxChatCost(row: ModelRow, body: ChatBody): MoneyT {
  return maxChatBounds(row, body).maxCost;
}

/** What a chat request can cost and use at most (maxChatCost and maxChatTokens, the request's size read once). */
export function maxChatBounds(row: ModelRow, body: ChatBody): { maxCost: MoneyT; tokens: number } {
  const p = pricesOf(row);
  const prompt = maxPromptTokens(row, body);
  const completion = maxCompletionTokens(row, body);
  return { maxCost: p.maxInput.times(prompt).plus(p.maxOutput.times(completion)).dividedBy(PER_MILLION), tokens: prompt + completion };
}

type EmbeddingInput = string | string[] | number[] | number[][];

/** Embeddings: the most input tokens, per input its UTF-8 bytes (or its token ids) plus an allowance, at most the context length. */
export function maxEmbeddingTokens(row: Pick<ModelRow, "contextLength">, input: EmbeddingInput): number {
  const items: (string | number[])[] = typeof input === "string" ? [input] : typeof input[0] === "number" ? [input as number[]] : (input as (string | number[])[]);
  let tokens = 0;
  for (const item of items) {
    const bound = (typeof item === "string" ? Buffer.byteLength(item) : item.length) + MESSAGE_ALLOWANCE;
    tokens += Math.min(bound, row.contextLength);
  }
  return tokens;
}

export function maxEmbeddingCost(row: ModelRow, input: EmbeddingInput): MoneyT {
  return pricesOf(row).input.times(maxEmbeddingTokens(row, input)).dividedBy(PER_MILLION);
}
