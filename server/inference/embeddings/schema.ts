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
