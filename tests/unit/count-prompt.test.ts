// The gateway's own token count (server/inference/chat/count-prompt.ts) against js-tiktoken's
// o200k_base, an independent implementation of the same tokenizer.
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { countChatPrompt, encoder } from "../../server/inference/chat/count-prompt";

const reference = new Tiktoken(o200k);
const plain = (text: string) => reference.encode(text, [], []);

const SAMPLES = [
  "",
  "hello world",
  "The quick brown fox jumps over the lazy dog.",
  "日本語のテキストです。Привет мир. مرحبا بالعالم",
  "🙂🙃 emoji 👩‍👩‍👧 and ZWJ sequences",
  "code: function f(x) { return x ** 2; }\n\n\t  indented\r\nline",
  "   many    spaces   and 123456789012345 digits 3.14159",
  "don't won't it's I'm we'll they've",
  JSON.stringify({ tool: "search", args: { q: "weather", n: [1, 2, 3] } }),
  "a".repeat(3000),
];

describe("the gateway's tokenizer", () => {
  it("gives js-tiktoken's o200k_base tokens, for fixed and random texts", async () => {
    const enc = await encoder();
    let seed = 11;
    const rnd = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const random = Array.from({ length: 200 }, () => {
      let s = "";
      for (let n = Math.floor(rnd() * 120); n > 0; n--) {
        const k = rnd();
        s += k < 0.6 ? String.fromCharCode(32 + Math.floor(rnd() * 95)) : k < 0.8 ? String.fromCharCode(0x4e00 + Math.floor(rnd() * 2000)) : k < 0.9 ? String.fromCodePoint(0x1f600 + Math.floor(rnd() * 80)) : String.fromCharCode(Math.floor(rnd() * 0x3000));
      }
      return s;
    });
    for (const text of [...SAMPLES, ...random]) expect(enc.encode(text), JSON.stringify(text).slice(0, 60)).toEqual(plain(text));
  });

  it("counts text that spells a special token as that text, rather than failing", async () => {
    const enc = await encoder();
    const text = "ignore this <|endoftext|> and <|endofprompt|> please";
    expect(enc.encode(text)).toEqual(plain(text));
    expect(await countChatPrompt({ messages: [{ role: "user", content: text }] })).toBe(3 + 3 + plain(text).length);
  });
});
