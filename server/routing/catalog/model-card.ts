// The public shape of a model (part 2.7 of the API reference). Nodes may publish the same
// shape in their /v1/models listing; the gateway imports it from there (see import-catalog.ts).
import { z } from "zod";
import { DECIMAL_STRING } from "../../kernel/money";

export const MODEL_TYPES = ["chat", "embedding", "speech", "transcription", "image", "video", "moderation"] as const;
export const ZModelType = z.enum(MODEL_TYPES);
export type ModelType = z.infer<typeof ZModelType>;

const price = z.string().regex(DECIMAL_STRING);

export const ZCapabilities = z.object({
  input_modalities: z.array(z.string()),
  output_modalities: z.array(z.string()),
  json_mode: z.boolean(),
  reasoning: z.boolean(),
  streaming: z.boolean(),
  structured_output: z.boolean(),
  tools: z.boolean(),
});

export const ZPricing = z.object({
  cache_read_per_1m: price,
  /** Prompt-cache writes (Anthropic's cache_creation_input_tokens); "0" bills them at the input price. */
  cache_write_per_1m: price.default("0"),
  input_per_1m: price,
  output_per_1m: price,
  per_1m_chars: price,
  per_audio_second: price,
  per_image: price,
  per_video_second: price,
  pricing_status: z.string(),
  reasoning_per_1m: price,
  /** A batch line (/v1/batches) costs this fraction of the live price. */
  batch_discount: price.default("0.5"),
  /** Fine-tuning this model: per 1M tokens trained (each epoch counted). */
  training_per_1m: price.default("0"),
  /** What a model tuned from this one costs per 1M tokens in and out; "0": this model's own prices. */
  fine_tuned_input_per_1m: price.default("0"),
  fine_tuned_output_per_1m: price.default("0"),
});

export const ZVideoBlock = z.object({
  default_size: z.string(),
  default_fps: z.number().int().positive().optional(),
  fps: z.object({ min: z.number().int().positive(), max: z.number().int().positive() }),
  seconds: z.object({ min: z.number().int().positive(), max: z.number().int().positive() }),
  supported_sizes: z.array(z.object({ size: z.string(), price_multiplier: price })).min(1),
});

export const ZModelObject = z.object({
  id: z.string(),
  object: z.literal("model"),
  created: z.number().int(),
  display_name: z.string(),
  owned_by: z.string(),
  provider: z.string(),
  type: ZModelType,
  context_length: z.number().int().min(1),
  max_output_tokens: z.number().int().min(1),
  knowledge_cutoff: z.string(),
  deprecated: z.boolean(),
  ready_now: z.boolean(),
  capabilities: ZCapabilities,
  /** A node serving it can fine-tune it (POST /v1/fine_tuning/jobs). */
  fine_tunable: z.boolean().default(false),
  /** A fine-tuned model's (or checkpoint's) base model; null for every other. Its `owned_by` is its workspace's id. */
  fine_tuned_from: z.string().nullable().default(null),
});
export type ModelObject = z.infer<typeof ZModelObject>;

export const ZModelDetail = ZModelObject.extend({ pricing: ZPricing, video: ZVideoBlock.optional() });
export type ModelDetail = z.infer<typeof ZModelDetail>;

/** What a node publishes about a model it serves, enough to create the catalog entry. */
export const ZModelCard = ZModelDetail.omit({ object: true, ready_now: true, created: true }).extend({
  created: z.number().int().optional(),
});
export type ModelCard = z.input<typeof ZModelCard>;
