// The built-in node's hashed n-gram embedding model, called over real HTTP with the official SDK
// (which asks for base64 and decodes it) and with raw fetch. Starts its own node.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { node, openai, useLocalNode } from "../local-node-fixture";
import { encode } from "../../local-node/tokenizer";

const MODEL = "local-embed-ngram";

useLocalNode();

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: number[]) => Math.sqrt(dot(a, a));
const cosine = (a: number[], b: number[]) => dot(a, b) / (norm(a) * norm(b));

function post(body: unknown): Promise<Response> {
  return fetch(`${node.url}/v1/embeddings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

async function vectors(input: string[], dimensions?: number): Promise<number[][]> {
  const r = await openai.embeddings.create({ model: MODEL, input, ...(dimensions ? { dimensions } : {}) });
  return r.data.map((d) => d.embedding);
}

describe("local node embeddings", () => {
  it("scores similar texts higher than unrelated ones", async () => {
    const [cat, cat2, revenue] = await vectors(["The cat sat on the mat.", "A cat was sitting on the mat.", "Quarterly revenue grew 12% in Europe."]);
    expect(cat).toHaveLength(512);
    expect(norm(cat!)).toBeCloseTo(1, 5);
    expect(cosine(cat!, cat2!)).toBeGreaterThan(cosine(cat!, revenue!) + 0.2);
    const [q, doc, other] = await vectors(["how do I reset my password", "To reset your password, open settings.", "Bananas are rich in potassium."]);
    expect(cosine(q!, doc!)).toBeGreaterThan(cosine(q!, other!));
  });

  it("is deterministic, returns one item per input in order, and counts tokens with the tokenizer", async () => {
    const input = ["alpha beta", "gamma delta epsilon", "alpha beta"];
    const r = await openai.embeddings.create({ model: MODEL, input });
    expect(r).toMatchObject({ object: "list", model: MODEL });
    expect(r.data.map((d) => [d.object, d.index])).toEqual([["embedding", 0], ["embedding", 1], ["embedding", 2]]);
    expect(r.data[2]!.embedding).toEqual(r.data[0]!.embedding);
    const tokens = input.reduce((s, t) => s + encode(t).length, 0);
    expect(r.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    const single = await openai.embeddings.create({ model: MODEL, input: "gamma delta epsilon" });
    expect(single.data[0]!.embedding).toEqual(r.data[1]!.embedding);
  });

  it("accepts token ids and arrays of token ids, decoded with the tokenizer", async () => {
    const text = "Token ids embed like their text.";
    const ids = encode(text);
    const [fromText] = await vectors([text]);
    const one = await openai.embeddings.create({ model: MODEL, input: ids });
    const many = await openai.embeddings.create({ model: MODEL, input: [ids, encode("another one")] });
    expect(one.data[0]!.embedding).toEqual(fromText);
    expect(many.data[0]!.embedding).toEqual(fromText);
    expect(many.data).toHaveLength(2);
    expect(one.usage.prompt_tokens).toBe(ids.length);
  });

  it("truncates to `dimensions` and re-normalises, keeping the ranking", async () => {
    const full = await vectors(["The cat sat on the mat."]);
    const [cat, cat2, revenue] = await vectors(["The cat sat on the mat.", "A cat was sitting on the mat.", "Quarterly revenue grew 12% in Europe."], 64);
    expect(cat).toHaveLength(64);
    expect(norm(cat!)).toBeCloseTo(1, 5);
    const prefix = full[0]!.slice(0, 64);
    for (let i = 0; i < 64; i++) expect(cat![i]).toBeCloseTo(prefix[i]! / norm(prefix), 6);
    expect(cosine(cat!, cat2!)).toBeGreaterThan(cosine(cat!, revenue!));
    expect((await vectors(["x"], 1))[0]).toHaveLength(1);
  });

  it("encodes base64 as little-endian float32 carrying exactly the float numbers", async () => {
    const input = ["base64 check", "second"];
    const floats = await (await post({ model: MODEL, input, encoding_format: "float" })).json();
    const b64 = await (await post({ model: MODEL, input, encoding_format: "base64" })).json();
    expect(b64.data).toHaveLength(2);
    for (const i of [0, 1]) {
      const bytes = Buffer.from(b64.data[i].embedding, "base64");
      expect(bytes.length).toBe(512 * 4);
      const decoded = Array.from({ length: 512 }, (_, k) => bytes.readFloatLE(k * 4));
      expect(decoded).toEqual(floats.data[i].embedding);
    }
    // The SDK asks for base64 when no format is given and decodes it to the same numbers.
    const sdk = await openai.embeddings.create({ model: MODEL, input });
    expect(sdk.data[0]!.embedding).toEqual(floats.data[0].embedding);
  });

  it("rejects empty input, bad dimensions or format with 400, and unknown or non-embedding models with 404", async () => {
    for (const body of [
      { model: MODEL, input: "" },
      { model: MODEL, input: [] },
      { model: MODEL, input: [""] },
      { model: MODEL, input: [[]] },
      { model: MODEL, input: "x", dimensions: 0 },
      { model: MODEL, input: "x", dimensions: 513 },
      { model: MODEL, input: "x", encoding_format: "int8" },
      { model: MODEL },
    ]) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect((await r.json()).error).toMatchObject({ type: "invalid_request_error", code: expect.any(String), message: expect.any(String) });
    }
    const unknown = await post({ model: "nope", input: "x" });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toMatchObject({ code: "model_not_found", param: "model", type: "invalid_request_error" });
    expect((await post({ model: "local-chat-sim", input: "x" })).status).toBe(404);
    await expect(openai.embeddings.create({ model: MODEL, input: "" })).rejects.toMatchObject({ status: 400 });
  });
});
