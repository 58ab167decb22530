// The built-in node's local-moderation model (obscenity's English dataset behind OpenAI's
// moderation shape), called over real HTTP with the official SDK. Starts its own node.
import { describe, expect, it } from "vitest";
import { apiError, openai, useLocalNode } from "../local-node-fixture";
import { CATEGORIES } from "../../local-node/moderation-classifier";
import { TERM_KINDS } from "../../local-node/moderation-terms";

const MODEL = "local-moderation";

useLocalNode();

describe("local-moderation", () => {
  it("answers OpenAI's shape: every category, scores in [0, 1], nothing flagged for clean text", async () => {
    const r = await openai.moderations.create({ model: MODEL, input: "The weather in Lisbon is lovely today." });
    expect(r.id).toMatch(/^modr-/);
    expect(r.model).toBe(MODEL);
    const [result] = r.results;
    expect(Object.keys(result!.categories).sort()).toEqual([...CATEGORIES].sort());
    expect(Object.keys(result!.category_scores).sort()).toEqual([...CATEGORIES].sort());
    for (const c of CATEGORIES) expect(result!.category_scores[c]).toBe(0);
    expect(result!.flagged).toBe(false);
    expect(result!.category_applied_input_types.hate).toEqual(["text"]);
  });

  it("flags slurs as hate, insults and profanity as harassment, explicit terms as sexual, obfuscated or not", async () => {
    const r = await openai.moderations.create({ model: MODEL, input: ["you are a n1gger", "what a f*cking b1tch", "watch hardcore porn here", "sex education at school", "rape"] });
    const [slur, insult, sexual, neutral, rape] = r.results;
    expect(slur).toMatchObject({ flagged: true, categories: { hate: true, harassment: true, sexual: false } });
    expect(insult).toMatchObject({ flagged: true, categories: { harassment: true, hate: false } });
    expect(sexual).toMatchObject({ flagged: true, categories: { sexual: true, harassment: false } });
    // "sex" is common in neutral text: it raises the sexual score without flagging.
    expect(neutral!.flagged).toBe(false);
    expect(neutral!.category_scores.sexual).toBeGreaterThan(0);
    expect(rape).toMatchObject({ flagged: true, categories: { sexual: true, violence: true } });
  });

  it("leaves look-alike words alone (the dataset's whitelist): Scunthorpe, assassin, analysis", async () => {
    const r = await openai.moderations.create({ model: MODEL, input: "The assassin from Scunthorpe wrote an analysis of cocktails." });
    expect(r.results[0]!.flagged).toBe(false);
  });

  it("reads the text parts of a multi-modal input together, never the image: it is not in the applied input types", async () => {
    const r = await openai.moderations.create({
      model: MODEL,
      input: [
        { type: "text", text: "hello there" },
        { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
        { type: "text", text: "you bastard" },
      ],
    });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]!.categories.harassment).toBe(true);
    for (const c of CATEGORIES) expect(r.results[0]!.category_applied_input_types[c]).toEqual(["text"]);
  });

  it("refuses an input of images only, a bad image URL, an empty list and a text past the context (400 naming input)", async () => {
    const image = { type: "image_url" as const, image_url: { url: "https://example.com/cat.png" } };
    expect(await apiError(openai.moderations.create({ model: MODEL, input: [image] }))).toMatchObject({ status: 400, code: "unsupported_input", param: "input" });
    const bad = { type: "image_url" as const, image_url: { url: "ftp://x" } };
    expect(await apiError(openai.moderations.create({ model: MODEL, input: [bad] }))).toMatchObject({ status: 400, param: "input.0.image_url.url" });
    expect(await apiError(openai.moderations.create({ model: MODEL, input: [] }))).toMatchObject({ status: 400, param: "input" });
    expect(await apiError(openai.moderations.create({ model: MODEL, input: "word ".repeat(40_000) }))).toMatchObject({ status: 400, code: "context_length_exceeded", param: "input" });
    expect(await apiError(openai.moderations.create({ model: "local-chat-sim", input: "x" }))).toMatchObject({ status: 404, param: "model" });
  });

  it("sorts every term of the library's dataset", () => {
    expect(Object.keys(TERM_KINDS).length).toBeGreaterThan(60);
  });
});
