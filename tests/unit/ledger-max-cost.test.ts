// The highest cost a call can have, computed from the request alone (what the ledger reserves):
// never below what a node that honours the request's limits bills. Checked against the built-in
// node's real tokenizer and its prompt accounting.
import { describe, expect, it } from "vitest";
import { promptTokens } from "../../local-node/usage";
import { countTokens } from "../../local-node/tokenizer";
import { ChatRequestSchema } from "../../local-node/chat-request";
import { maxChatCost, maxCompletionTokens, maxEmbeddingCost, maxPromptTokens, tokenCost } from "../../server/routing/catalog/pricing";
import { noteBodySize } from "../../server/kernel/body-size";
import { characterCost, maxImageCost, maxSpeechCost } from "../../server/routing/catalog/media-pricing";
import type { ModelRow } from "../../server/routing/catalog/model-row";
import { formatMoney, money } from "../../server/kernel/money";

const row = {
  id: "m",
  contextLength: 32_768,
  maxOutputTokens: 4096,
  priceInputPer1m: "0.15",
  priceCacheReadPer1m: "0.075",
  priceCacheWritePer1m: "0.1875",
  priceOutputPer1m: "0.6",
  priceReasoningPer1m: "0.9",
  pricePer1mChars: "15",
  pricePerImage: "0.02",
} as unknown as ModelRow;

/** A random string over several scripts and symbols, the kind that tokenizes worst. */
function randomText(length: number, seed: number): string {
  const ranges = [[0x20, 0x7e], [0x4e00, 0x9fff], [0x1f300, 0x1faff], [0x0400, 0x04ff], [0x0600, 0x06ff], [0xac00, 0xd7a3]];
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  let out = "";
  for (let i = 0; i < length; i++) {
    const [lo, hi] = ranges[next() % ranges.length]!;
    out += String.fromCodePoint(lo! + (next() % (hi! - lo! + 1)));
  }
  return out;
}

const requests: Record<string, unknown>[] = [
  { model: "m", messages: [{ role: "user", content: "hi" }] },
  { model: "m", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Why is the sky blue?", name: "ann" }] },
  { model: "m", messages: Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: String(i % 10) })) },
  { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "one" }, { type: "text", text: "two" }] }] },
  {
    model: "m",
    messages: [
      { role: "user", content: "weather?" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Zürich"}' } }] },
      { role: "tool", tool_call_id: "c1", content: '{"temp":21}' },
    ],
    tools: [{ type: "function", function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
  },
  {
    model: "m",
    messages: [{ role: "user", content: "json please" }],
    response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object", properties: { a: { type: "number" } } } } },
  },
  ...Array.from({ length: 20 }, (_, i) => ({ model: "m", messages: [{ role: "user", content: randomText(50 + i * 97, i + 1) }] })),
];

describe("highest cost of a call (the ledger's reservation)", () => {
  it("chat: the input bound is never below the prompt tokens the built-in node counts", () => {
    for (const body of requests) {
      const counted = promptTokens(ChatRequestSchema.parse(body));
      const bound = maxPromptTokens(row, body);
      expect(bound, JSON.stringify(body).slice(0, 80)).toBeGreaterThanOrEqual(counted);
    }
  });

  it("chat: the input bound counts the body's bytes as the client sent them when the transport noted them, else its serialised size", () => {
    for (const body of requests) {
      const sent = JSON.stringify(body, null, 2); // a client that indents: more bytes than the body's serialised form
      const parsed = JSON.parse(sent) as Record<string, unknown>;
      const allowance = 16 + 8 * (parsed.messages as unknown[]).length;
      expect(maxPromptTokens(row, parsed)).toBe(Math.min(row.contextLength, Buffer.byteLength(JSON.stringify(parsed)) + allowance));
      noteBodySize(parsed, Buffer.byteLength(sent));
      expect(maxPromptTokens(row, parsed)).toBe(Math.min(row.contextLength, Buffer.byteLength(sent) + allowance));
      expect(maxPromptTokens(row, parsed)).toBeGreaterThanOrEqual(promptTokens(ChatRequestSchema.parse(body)));
    }
  });

  it("chat: never more than the context; a message with an image may fill it", () => {
    const long = { model: "m", messages: [{ role: "user", content: "x".repeat(100_000) }] };
    expect(maxPromptTokens(row, long)).toBe(32_768);
    const image = { model: "m", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://e.x/a.png" } }] }] };
    expect(maxPromptTokens(row, image)).toBe(32_768);
  });

  it("chat: the output bound is the request's limit (the larger of two), else the model's, times n", () => {
    expect(maxCompletionTokens(row, {})).toBe(4096);
    expect(maxCompletionTokens(row, { max_tokens: 64 })).toBe(64);
    expect(maxCompletionTokens(row, { max_tokens: 64, max_completion_tokens: 100 })).toBe(100);
    expect(maxCompletionTokens(row, { max_completion_tokens: 10, n: 3 })).toBe(30);
  });

  it("chat: priced at the dearer input and output prices, so any mix of cached and reasoning tokens is covered", () => {
    const body = { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 100 };
    const input = maxPromptTokens(row, body);
    const max = maxChatCost(row, body);
    // The cache-write price (0.1875) is the dearest input price here.
    expect(formatMoney(max)).toBe(formatMoney(money("0.1875").times(input).plus(money("0.9").times(100)).dividedBy(1_000_000)));
    for (const reasoning of [0, 50, 100]) {
      for (const [cached, written] of [[0, 0], [input, 0], [0, input], [1, input - 1]]) {
        const cost = tokenCost(row, { inputTokens: input, cachedTokens: cached!, cacheWriteTokens: written!, outputTokens: 100, reasoningTokens: reasoning });
        expect(cost.lte(max)).toBe(true);
      }
    }
  });

  it("cache reads and writes are priced apart from the rest of the input, exactly; no write price means the input price", () => {
    const usage = { inputTokens: 10_000, cachedTokens: 6_000, cacheWriteTokens: 3_000, outputTokens: 500, reasoningTokens: 0 };
    // 1,000 plain input at 0.15, 6,000 reads at 0.075, 3,000 writes at 0.1875, 500 output at 0.6 (per 1M).
    expect(formatMoney(tokenCost(row, usage))).toBe("0.0014625");
    const noWritePrice = { ...row, priceCacheWritePer1m: "0" } as unknown as ModelRow;
    // The writes at the input price instead: 4,000 x 0.15 + 6,000 x 0.075 + 500 x 0.6.
    expect(formatMoney(tokenCost(noWritePrice, usage))).toBe("0.00135");
  });

  it("embeddings: never below the tokens the built-in node counts, per input and in total", () => {
    const inputs = [randomText(300, 7), "hello world", randomText(40, 9)];
    const counted = inputs.reduce((n, t) => n + countTokens(t), 0);
    expect(maxEmbeddingCost(row, inputs).gte(money("0.15").times(counted).dividedBy(1_000_000))).toBe(true);
    expect(formatMoney(maxEmbeddingCost(row, [1, 2, 3]))).toBe(formatMoney(money("0.15").times(3 + 8).dividedBy(1_000_000)));
  });

  it("speech is reserved exactly; images by the count asked for", () => {
    expect(formatMoney(maxSpeechCost(row, "héllo 👋"))).toBe(formatMoney(characterCost(row, 7)));
    expect(formatMoney(maxImageCost(row, 3))).toBe("0.06");
    expect(formatMoney(maxImageCost(row, undefined))).toBe("0.02");
  });
});
