// POST /v1/moderations through the gateway, with the official SDK: OpenAI's shape, routing to the
// built-in node's local-moderation, the default model, refusals, and billing (free by default,
// exact when priced). The priced model exists only for this file.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { encoder } from "../../server/inference/chat/count-prompt";
import { MODERATION_CATEGORIES } from "../../server/inference/moderations/schema";
import { formatMoney, money } from "../../server/kernel/money";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { newWorkspace, until } from "../helpers";

const MODEL = "local-moderation";
const PRICED = "test-moderation-priced";
const PRICE = "0.37";

beforeAll(async () => {
  const local = await db.node.findUniqueOrThrow({ where: { name: "local" } });
  const card = {
    id: PRICED,
    display_name: "Priced moderation (test)",
    owned_by: "test",
    provider: "local",
    type: "moderation" as const,
    context_length: 32768,
    max_output_tokens: 1,
    knowledge_cutoff: "2025-12",
    deprecated: false,
    capabilities: { input_modalities: ["text"], output_modalities: ["moderation"], json_mode: false, reasoning: false, streaming: false, structured_output: false, tools: false },
    pricing: { cache_read_per_1m: "0", input_per_1m: PRICE, output_per_1m: "0", per_1m_chars: "0", per_audio_second: "0", per_image: "0", per_video_second: "0", reasoning_per_1m: "0", pricing_status: "active" },
  };
  await db.model.create({ data: { ...cardToRow(card), nodes: { create: { nodeId: local.id, upstreamModel: MODEL } } } });
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.nodesChanged);
});

afterAll(async () => {
  await db.model.deleteMany({ where: { id: PRICED } });
  await notify(db, Channel.catalogChanged);
});

describe("POST /v1/moderations", () => {
  it("classifies a clean string: all 13 categories, scores in [0, 1], not flagged; free, with a usage event of its input tokens", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const { data, response } = await openai.moderations.create({ model: MODEL, input: "What a lovely morning for a walk in the park." }).withResponse();
    expect(data.id).toMatch(/^modr-/);
    expect(data.model).toBe(MODEL);
    expect(data.results).toHaveLength(1);
    const [result] = data.results;
    expect(result!.flagged).toBe(false);
    expect(Object.keys(result!.categories).sort()).toEqual([...MODERATION_CATEGORIES].sort());
    expect(Object.keys(result!.category_scores).sort()).toEqual([...MODERATION_CATEGORIES].sort());
    for (const c of MODERATION_CATEGORIES) {
      expect(result!.categories[c]).toBe(false);
      expect(result!.category_scores[c]).toBeGreaterThanOrEqual(0);
      expect(result!.category_scores[c]).toBeLessThanOrEqual(1);
      expect(result!.category_applied_input_types[c]).toEqual(["text"]);
    }
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: response.headers.get("x-request-id")! } });
    expect(event).toMatchObject({ workspaceId: workspace.id, modelId: MODEL, endpoint: "/v1/moderations", usageEstimated: true });
    expect(event.inputTokens).toBe((await encoder()).encode("What a lovely morning for a walk in the park.").length);
    expect(formatMoney(event.cost)).toBe("0");
  });

  it("flags a slur as hate and profanity as harassment; a list of strings gets one result per string, in order", async () => {
    const { openai } = await newWorkspace("1");
    const res = await openai.moderations.create({ model: MODEL, input: ["thank you kindly", "shut up you f*cking b1tch", "they are all n1ggers", "a nice cup of tea"] });
    expect(res.results.map((r) => r.flagged)).toEqual([false, true, true, false]);
    expect(res.results[1]!.categories).toMatchObject({ harassment: true, hate: false });
    expect(res.results[2]!.categories).toMatchObject({ hate: true });
    expect(res.results[2]!.category_scores.hate).toBeGreaterThan(res.results[3]!.category_scores.hate);
  });

  it("without `model`, uses the first moderation model served (local-moderation)", async () => {
    const { openai } = await newWorkspace("1");
    const res = await openai.moderations.create({ input: "hello" });
    expect(res.model).toBe(MODEL);
  });

  it("multi-modal parts make one result: the text is classified, the image is not, and no category claims it", async () => {
    const { openai } = await newWorkspace("1");
    const res = await openai.moderations.create({
      model: MODEL,
      input: [
        { type: "text", text: "look at this, you bastard" },
        { type: "image_url", image_url: { url: "https://example.com/picture.png" } },
      ],
    });
    expect(res.results).toHaveLength(1);
    const [result] = res.results;
    expect(result!.categories.harassment).toBe(true);
    for (const c of MODERATION_CATEGORIES) expect(result!.category_applied_input_types[c]).toEqual(["text"]);
  });

  it("an input of images only is refused by local-moderation (it cannot look at them), and costs nothing", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const err = await openai.moderations.create({ model: MODEL, input: [{ type: "image_url", image_url: { url: "https://example.com/picture.png" } }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.code).toBe("unsupported_input");
    expect(err.param).toBe("input");
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("an unknown model is 404 model_not_found; a chat model is 400 naming model", async () => {
    const { openai } = await newWorkspace("1");
    const missing = await openai.moderations.create({ model: "no-such-moderation", input: "hi" }).catch((e) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing.code).toBe("model_not_found");
    const chat = await openai.moderations.create({ model: "local-chat-sim", input: "hi" }).catch((e) => e);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect(chat.param).toBe("model");
  });

  it.each([
    [{ input: [] }, "input"],
    [{ input: 42 }, "input"],
    [{ input: [1, 2] }, "input"],
    [{ input: [{ type: "audio", audio: "x" }] }, "input"],
    [{ input: ["a", { type: "text", text: "b" }] }, "input"],
    [{}, "input"],
    [{ input: "x", model: 7 }, "model"],
  ])("rejects %j with 400 naming `%s`, and charges nothing", async (patch, param) => {
    const { openai, workspace } = await newWorkspace("1");
    const err = await openai.moderations.create({ model: MODEL, ...(patch as object) } as never).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.param).toBe(param);
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("a priced moderation model is charged exactly: its input tokens at input_per_1m", async () => {
    const { openai } = await newWorkspace("1");
    const input = ["the first text to check", "and a second, slightly longer text to check as well"];
    const { value } = await until(
      () => openai.moderations.create({ model: PRICED, input }).withResponse().catch((e: unknown) => e),
      (r) => !(r instanceof Error),
      10_000,
    );
    const { data, response } = value as Awaited<ReturnType<ReturnType<typeof openai.moderations.create>["withResponse"]>>;
    expect(data.model).toBe(PRICED);
    expect(data.results).toHaveLength(2);
    const enc = await encoder();
    const tokens = input.reduce((sum, t) => sum + enc.encode(t).length, 0);
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: response.headers.get("x-request-id")! } });
    expect(event).toMatchObject({ modelId: PRICED, inputTokens: tokens });
    expect(formatMoney(event.cost)).toBe(formatMoney(money(PRICE).times(tokens).dividedBy(1_000_000)));
  });
});
