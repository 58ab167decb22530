// The gateway's own count of a chat call's tokens, for what a node does not count: Anthropic's
// count_tokens on nodes that have none, and the usage of a node that reported none (so such a
// call is billed for what it used, not for nothing). The o200k tokenizer (gpt-tokenizer; loaded by
// the first count) plus the chat template's few tokens per message, and a flat count per image:
// an estimate, close for most model families, never zero for a call that said something.
//
// gpt-tokenizer gives the same tokens as tiktoken's o200k_base (tests/unit/count-prompt.test.ts
// compares it with js-tiktoken) in a fifth of the memory (15 MB of heap in a gateway process, its
// ranks read as data by o200k-ranks.ts, against 70-80 MB) and about twenty times faster.
import type { TokenUsage } from "../../routing/catalog/pricing";
import { logFor } from "../../infra/telemetry/log";
import { o200kRanks } from "./o200k-ranks";

const log = logFor("tokenizer");

type Json = Record<string, unknown>;
/** Token ids of a text; special-token text is encoded as plain text. */
type Encoder = { encode(text: string): number[] };

/** Tokens a chat template adds per message (role markers), and to prime the reply. */
const PER_MESSAGE = 3;
const PRIMING = 3;
/** Tokens counted for each image (an image of about 1.15 megapixels, the largest sent unscaled). */
const PER_IMAGE = 1568;

/** Words whose tokens the tokenizer keeps (a caller's texts decide what they are). */
const MERGE_CACHE_WORDS = 10_000;

let tokenizer: Promise<Encoder> | undefined;

async function loadTokenizer(): Promise<Encoder> {
  // The ranks read as data (o200k-ranks.ts); where they cannot be, the package's module of the same ranks.
  const ranks = await o200kRanks().catch((err: unknown) => {
    log.warn({ err }, "tokenizer: its ranks could not be read as data; the package's module is loaded instead");
    return null;
  });
  const { encode, setMergeCacheSize } = ranks
    ? (await import("gpt-tokenizer/GptEncoding")).GptEncoding.getEncodingApi("o200k_base", () => ranks)
    : await import("gpt-tokenizer/encoding/o200k_base");
  // Its cache of the words it encoded: 10,000 (about 1 MB) rather than its default 100,000.
  setMergeCacheSize(MERGE_CACHE_WORDS);
  // A caller's text that spells a special token ("<|endoftext|>") is counted as the text it is.
  const asText = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };
  return { encode: (text) => encode(text, asText) };
}

export const encoder = (): Promise<Encoder> => (tokenizer ??= loadTokenizer());

function textAndImages(content: unknown): { text: string; images: number } {
  if (typeof content === "string") return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: "", images: 0 };
  let text = "";
  let images = 0;
  for (const part of content as Json[]) {
    if (part.type === "image_url" || part.type === "input_image") images += 1;
    else if (typeof part.text === "string") text += part.text;
  }
  return { text, images };
}

/** The prompt tokens of an OpenAI chat request: its messages (with tool calls) and its tools. */
export async function countChatPrompt(body: { messages?: unknown; tools?: unknown }): Promise<number> {
  const enc = await encoder();
  let tokens = PRIMING;
  for (const message of (Array.isArray(body.messages) ? body.messages : []) as Json[]) {
    const { text, images } = textAndImages(message.content);
    const calls = message.tool_calls ? JSON.stringify(message.tool_calls) : "";
    tokens += PER_MESSAGE + enc.encode(text + calls).length + images * PER_IMAGE;
  }
  if (body.tools) tokens += enc.encode(JSON.stringify(body.tools)).length;
  return tokens;
}

/** What an answer said, as text to count: its content, reasoning and tool calls' names and arguments. */
export function answerText(message: Json): string {
  let text = "";
  for (const field of ["content", "reasoning_content", "refusal"]) if (typeof message[field] === "string") text += message[field];
  for (const call of (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[]) {
    const fn = (call.function ?? {}) as Json;
    text += `${fn.name ?? ""}${fn.arguments ?? ""}`;
  }
  return text;
}

/**
 * The usage of a call whose node reported none: its prompt and its answer, counted by the
 * gateway (the answer's count times `scale` when only part of it was kept).
 */
export async function estimateUsage(body: { messages?: unknown; tools?: unknown }, answer: string, scale = 1): Promise<TokenUsage> {
  const [inputTokens, enc] = await Promise.all([countChatPrompt(body), encoder()]);
  return { inputTokens, cachedTokens: 0, outputTokens: Math.ceil(enc.encode(answer).length * scale), reasoningTokens: 0, estimated: true };
}
