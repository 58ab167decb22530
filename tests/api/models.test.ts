import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import OpenAI from "openai";
import { client, raw } from "../helpers";

const TYPES = ["chat", "embedding", "speech", "transcription", "image", "video", "moderation"];
/**
 * The reference's nine fields, `cache_write_per_1m` (prompt-cache writes, priced apart since
 * Anthropic nodes report them), `batch_discount` (the fraction of the price a batch line costs)
 * and the fine-tuning prices (training, and the tuned models' input and output).
 */
const PRICING_FIELDS = [
  "batch_discount",
  "cache_read_per_1m",
  "cache_write_per_1m",
  "fine_tuned_input_per_1m",
  "fine_tuned_output_per_1m",
  "input_per_1m",
  "output_per_1m",
  "per_1m_chars",
  "per_audio_second",
  "per_image",
  "per_video_second",
  "pricing_status",
  "reasoning_per_1m",
  "training_per_1m",
];
const DECIMAL = /^\d+(\.\d+)?$/;

describe("GET /v1/models (part 2.7)", () => {
  const openai = () => client(inject("demoKey"));

  it("lists every model with every field of part 2.7, one of each type from the built-in node", async () => {
    const page = await openai().models.list();
    const models = page.data as unknown as Record<string, unknown>[];
    expect(new Set(models.map((m) => m.type))).toEqual(new Set(TYPES));
    for (const m of models) {
      expect(m).toMatchObject({
        object: "model",
        id: expect.any(String),
        created: expect.any(Number),
        display_name: expect.any(String),
        owned_by: expect.any(String),
        provider: expect.any(String),
        knowledge_cutoff: expect.any(String),
        deprecated: false,
        // Other test files add models whose nodes come later (or never): only the built-in node's must be ready.
        ready_now: m.owned_by === "local-node" ? true : expect.any(Boolean),
        capabilities: {
          input_modalities: expect.any(Array),
          output_modalities: expect.any(Array),
          json_mode: expect.any(Boolean),
          reasoning: expect.any(Boolean),
          streaming: expect.any(Boolean),
          structured_output: expect.any(Boolean),
          tools: expect.any(Boolean),
        },
      });
      expect(TYPES).toContain(m.type);
      expect(m.context_length).toBeGreaterThanOrEqual(1);
      expect(m.max_output_tokens).toBeGreaterThanOrEqual(1);
      // the list carries no pricing: that is what retrieve adds
      expect(m).not.toHaveProperty("pricing");
    }
  });

  it("retrieve adds all fourteen pricing fields as decimal strings, nonzero for each priced model's unit", async () => {
    const page = await openai().models.list();
    for (const listed of page.data) {
      const res = await raw(`/v1/models/${listed.id}`, { key: inject("demoKey") });
      expect(res.status).toBe(200);
      const m = (await res.json()) as Record<string, any>;
      expect(Object.keys(m.pricing).sort()).toEqual([...PRICING_FIELDS].sort());
      for (const f of PRICING_FIELDS) {
        expect(typeof m.pricing[f]).toBe("string");
        if (f !== "pricing_status") expect(m.pricing[f]).toMatch(DECIMAL);
      }
      const unit = {
        chat: "input_per_1m",
        embedding: "input_per_1m",
        speech: "per_1m_chars",
        transcription: "per_audio_second",
        image: "per_image",
        video: "per_video_second",
        moderation: "input_per_1m",
      }[m.type as string]!;
      // The built-in moderation model is free (docs/MODERATION.md); every other model is priced in its unit.
      if (m.id === "local-moderation") expect(m.pricing[unit]).toBe("0");
      else expect(Number(m.pricing[unit])).toBeGreaterThan(0);
      expect(m.pricing.batch_discount).toBe("0.5");
      if (m.type === "video") {
        expect(m.video).toMatchObject({
          default_size: expect.any(String),
          fps: { min: expect.any(Number), max: expect.any(Number) },
          seconds: { min: expect.any(Number), max: expect.any(Number) },
        });
        expect(m.video.supported_sizes.length).toBeGreaterThan(0);
        for (const s of m.video.supported_sizes) expect(s).toEqual({ size: expect.any(String), price_multiplier: expect.stringMatching(DECIMAL) });
        expect(m.video.supported_sizes.map((s: { size: string }) => s.size)).toContain(m.video.default_size);
      } else {
        expect(m).not.toHaveProperty("video");
      }
    }
  });

  it("retrieve through the SDK returns the same model", async () => {
    const m = await openai().models.retrieve("local-chat-sim");
    expect(m.id).toBe("local-chat-sim");
    expect((m as unknown as { pricing: { input_per_1m: string } }).pricing.input_per_1m).toBe("0.15");
  });

  it("an unknown model is 404 model_not_found with param model", async () => {
    const err = await openai().models.retrieve("no-such-model").catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.status).toBe(404);
    expect(err.error).toEqual({
      code: "model_not_found",
      message: expect.stringContaining("no-such-model"),
      param: "model",
      type: "invalid_request_error",
    });
  });

  it("DELETE /v1/models/{id} is refused to API keys with 403: models belong to the operators", async () => {
    const err = await openai().models.delete("local-chat-sim").catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(err.error).toMatchObject({ code: "permission_denied", type: "permission_error", param: null });
    // and the model is still there
    expect((await openai().models.retrieve("local-chat-sim")).id).toBe("local-chat-sim");
    const unknown = await openai().models.delete("no-such-model").catch((e) => e);
    expect(unknown.status).toBe(404);
  });
});
