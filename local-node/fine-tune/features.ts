// The sparse features of the fine-tuned model: what it sees when it predicts the next token of a
// completion. Each feature is a 32-bit key (hashed integers, no strings on the hot path); the
// model keeps an embedding per key seen in training and ignores the others.

/** The class of "no more tokens": the model predicts it after the completion's last token. */
export const END = -1;
/** The token before the first one of a completion. */
export const BOS = -2;
/** Positions beyond these share the last bucket. */
const MAX_PROMPT_POSITION = 255;
const MAX_WORD_POSITION = 63;
/** Prompt words that get features of their own (the first ones, without repeats). */
const MAX_WORDS = 48;

/** murmur3's 32-bit finaliser. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A key of the feature `kind` over up to three integers. */
export function featureKey(kind: number, a = 0, b = 0, c = 0): number {
  let h = fmix(kind + 0x9e3779b9);
  h = fmix(h ^ Math.imul(a | 0, 0x27d4eb2f));
  h = fmix(h ^ Math.imul(b | 0, 0x165667b1));
  return fmix(h ^ Math.imul(c | 0, 0x61c88647));
}

/** 32-bit FNV-1a of a string (its UTF-16 code units). */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const KIND = { promptPosition: 1, promptPrevious: 2, bigram: 3, previous: 4, wordPosition: 5, bias: 6 } as const;

/** What the features of one prompt are computed from, once per prompt. */
export type PromptContext = { hash: number; words: number[] };

/** A message as far as the prompt goes: its role, its text and its tool calls. */
export type PromptMessage = { role: string; content?: unknown; tool_calls?: { function?: { name?: string; arguments?: string } }[] };

/** The text of a content: a string as is, the `text` of text parts joined with "\n". */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is { text: string } => !!p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string")
    .map((p) => p.text)
    .join("\n");
}

/** The prompt as one normalised string: "role: text" lines, lower-cased, spaces collapsed. */
export function promptText(messages: PromptMessage[]): string {
  return messages
    .map((m) => {
      const calls = (m.tool_calls ?? []).map((c) => `${c.function?.name ?? ""}(${c.function?.arguments ?? ""})`).join(" ");
      return `${m.role}: ${messageText(m.content)} ${calls}`.toLowerCase().replace(/\s+/g, " ").trim();
    })
    .join("\n");
}

export function promptContext(messages: PromptMessage[]): PromptContext {
  const text = promptText(messages);
  const words: number[] = [];
  const seen = new Set<string>();
  for (const m of messages) {
    for (const word of messageText(m.content).toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      if (!word || seen.has(word)) continue;
      seen.add(word);
      words.push(hashText(word));
      if (words.length >= MAX_WORDS) break;
    }
  }
  return { hash: hashText(text), words };
}

/** Whether a feature depends on the prompt (the others only on the tokens before). */
export type Feature = { key: number; fromPrompt: boolean; kind: keyof typeof KIND };

/** The features for predicting the token at `position` after `previous` and `beforePrevious`. */
export function tokenFeatures(ctx: PromptContext, position: number, previous: number, beforePrevious: number): Feature[] {
  const out: Feature[] = [
    { key: featureKey(KIND.promptPosition, ctx.hash, Math.min(position, MAX_PROMPT_POSITION)), fromPrompt: true, kind: "promptPosition" },
    { key: featureKey(KIND.promptPrevious, ctx.hash, previous), fromPrompt: true, kind: "promptPrevious" },
    { key: featureKey(KIND.bigram, beforePrevious, previous), fromPrompt: false, kind: "bigram" },
    { key: featureKey(KIND.previous, previous), fromPrompt: false, kind: "previous" },
    { key: featureKey(KIND.bias), fromPrompt: false, kind: "bias" },
  ];
  const at = Math.min(position, MAX_WORD_POSITION);
  for (const word of ctx.words) out.push({ key: featureKey(KIND.wordPosition, word, at), fromPrompt: true, kind: "wordPosition" });
  return out;
}

/** The features of every token of `completion` (and of the end after it), in order. */
export function completionFeatures(ctx: PromptContext, completion: number[]): { features: Feature[]; target: number }[] {
  const rows: { features: Feature[]; target: number }[] = [];
  for (let i = 0; i <= completion.length; i++) {
    const previous = i > 0 ? completion[i - 1]! : BOS;
    const beforePrevious = i > 1 ? completion[i - 2]! : BOS;
    rows.push({ features: tokenFeatures(ctx, i, previous, beforePrevious), target: i < completion.length ? completion[i]! : END });
  }
  return rows;
}
