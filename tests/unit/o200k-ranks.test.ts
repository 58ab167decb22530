// The o200k_base ranks read from gpt-tokenizer's .tiktoken data (server/inference/chat/o200k-ranks.ts)
// against the array of the package's own generated module, element by element.
import bpe from "gpt-tokenizer/bpeRanks/o200k_base";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it, vi } from "vitest";
import { o200kRanks, ranksOf } from "../../server/inference/chat/o200k-ranks";

describe("o200k_base's ranks read as data", () => {
  it("are the package module's array: the same length, strings and byte arrays", async () => {
    const ranks = await o200kRanks();
    const reference = bpe as (string | number[])[];
    expect(ranks.length).toBe(reference.length);
    let differences = 0;
    let byteTokens = 0;
    for (let i = 0; i < reference.length; i++) {
      if (Array.isArray(reference[i])) byteTokens += 1;
      if (JSON.stringify(ranks[i]) !== JSON.stringify(reference[i]) || i in ranks !== i in reference) differences += 1;
    }
    expect(differences).toBe(0);
    // Both kinds are there: tokens that are not UTF-8 on their own stay bytes.
    expect(byteTokens).toBeGreaterThan(100);
  });

  it("keeps a missing rank a hole, and refuses a line that is not a rank", () => {
    const ranks = ranksOf(`${Buffer.from("a").toString("base64")} 0\n${Buffer.from([0xff]).toString("base64")} 2\n`);
    expect(ranks.length).toBe(3);
    expect(1 in ranks).toBe(false);
    expect(ranks[0]).toBe("a");
    expect(ranks[2]).toEqual([0xff]);
    expect(() => ranksOf("YQ==\n")).toThrow(/not a tiktoken rank line/);
    expect(() => ranksOf("YQ== x\n")).toThrow(/not a tiktoken rank line/);
  });

  it("where they cannot be read (no process.getBuiltinModule), the tokenizer loads the package's module and counts the same", async () => {
    const original = process.getBuiltinModule;
    (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
    try {
      await expect(o200kRanks()).rejects.toThrow(/getBuiltinModule/);
      vi.resetModules();
      const { encoder } = await import("../../server/inference/chat/count-prompt");
      const text = "Fallbacks count the same: 日本語 and 🙂.";
      expect((await encoder()).encode(text)).toEqual(new Tiktoken(o200k).encode(text, [], []));
    } finally {
      process.getBuiltinModule = original;
    }
  });
});
