// The images API (part 2.10 of the API reference): generation, edit and variation requests, the
// signed link of a stored image, and the images result the first three answer with.
import { z } from "zod";
import { ZUpload } from "../../infra/storage/upload";
import { unixSeconds } from "../../kernel/answer-schemas";

export const IMAGE_SIZES = ["auto", "256x256", "512x512", "1024x1024", "1536x1024", "1024x1536", "1792x1024", "1024x1792"] as const;

/** Set by the REST adapter (never by the client): the origin that `url` results point at. */
const origin = z.string().url();
const common = {
  model: z.string().min(1).optional(),
  size: z.enum(IMAGE_SIZES).optional(),
  response_format: z.enum(["b64_json", "url"]).default("b64_json"),
  user: z.string().optional(),
  origin,
};

/** OpenAI's document lets a JSON request give null for an option it leaves unset: read as absent. */
const orNull = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === null ? undefined : v), schema);

/** POST /v1/images/generations (JSON). */
export const ZImageGeneration = z.object({
  ...common,
  model: orNull(common.model),
  size: orNull(common.size),
  response_format: orNull(common.response_format),
  prompt: z.string().min(1, "must not be empty").max(32000),
  n: orNull(z.number().int().min(1).max(10).default(1)),
  quality: orNull(z.enum(["auto", "standard", "hd", "low", "medium", "high"]).optional()),
  style: orNull(z.enum(["vivid", "natural"]).optional()),
  background: orNull(z.enum(["auto", "transparent", "opaque"]).optional()),
  output_format: orNull(z.enum(["png", "jpeg", "webp"]).optional()),
  output_compression: orNull(z.number().int().min(0).max(100).optional()),
  moderation: orNull(z.enum(["auto", "low"]).optional()),
});
export type ImageGeneration = z.infer<typeof ZImageGeneration>;

/** Form fields arrive as strings: numbers are coerced, as OpenAI does. */
const formN = z.coerce.number().int().min(1).max(10).default(1);

/** POST /v1/images/edits (multipart). */
export const ZImageEdit = z.object({
  ...common,
  image: ZUpload,
  mask: ZUpload.optional(),
  prompt: z.string().min(1, "must not be empty").max(32000),
  n: formN,
  quality: z.enum(["auto", "standard", "low", "medium", "high"]).optional(),
  background: z.enum(["auto", "transparent", "opaque"]).optional(),
  output_format: z.enum(["png", "jpeg", "webp"]).optional(),
});
export type ImageEdit = z.infer<typeof ZImageEdit>;

/** POST /v1/images/variations (multipart). */
export const ZImageVariation = z.object({ ...common, image: ZUpload, n: formN });
export type ImageVariation = z.infer<typeof ZImageVariation>;

export const ZImageFile = z.object({ name: z.string().min(1), expires: z.coerce.number().int(), signature: z.string() });
export type ImageFile = z.infer<typeof ZImageFile>;

// ---- The answer ----

const revisedPrompt = z.string().optional();

/** What generations, edits and variations answer. */
export const ZImagesResult = z.strictObject({
  created: unixSeconds,
  data: z.array(
    z.union([
      z.strictObject({ b64_json: z.string().describe("The image, base64 (`response_format: b64_json`, the default)"), revised_prompt: revisedPrompt }),
      z.strictObject({ url: z.string().describe("A signed link to the image on this gateway, valid for a limited time (`response_format: url`)"), revised_prompt: revisedPrompt }),
    ]),
  ),
});
