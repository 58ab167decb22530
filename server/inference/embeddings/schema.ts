// POST /v1/embeddings (part 2.10 of the API reference): the request and its answer.
import { z } from "zod";

const tokenArray = z.array(z.number().int().min(0)).min(1, "must not be empty");

export const ZEmbeddingsRequest = z.looseObject({
  model: z.string().min(1),
  input: z.union([
    z.string().min(1, "must not be empty"),
    z.array(z.string().min(1, "must not be empty")).min(1, "must not be empty").max(2048),
    tokenArray,
    z.array(tokenArray).min(1, "must not be empty").max(2048),
  ]),
  dimensions: z.number().int().min(1).optional(),
  encoding_format: z.enum(["float", "base64"]).optional(),
  user: z.string().optional(),
});
export type EmbeddingsRequest = z.infer<typeof ZEmbeddingsRequest>;

// ---- The answer ----

export const ZEmbeddingsResult = z.looseObject({
  object: z.literal("list"),
  model: z.string().describe("The gateway's model id"),
  data: z.array(
    z.looseObject({
      object: z.literal("embedding"),
      index: z.number().int(),
      embedding: z.union([z.array(z.number()), z.string().describe("base64 of little-endian float32s, with `encoding_format: base64`")]),
    }),
  ),
  usage: z.strictObject({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});
