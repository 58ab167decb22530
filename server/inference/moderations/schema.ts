// POST /v1/moderations: the request and its answer, in OpenAI's shapes. `input` is one text, a
// list of texts (one result each) or one list of multi-modal parts (one result for all of them).
import { z } from "zod";

/** OpenAI's thirteen categories: every result names each of them, whatever its model can detect. */
export const MODERATION_CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic",
] as const;
export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

/** The most texts one request may hold (one result each). */
export const MAX_MODERATION_INPUTS = 2048;

const ZTextPart = z.strictObject({ type: z.literal("text"), text: z.string() });
const ZImagePart = z.strictObject({
  type: z.literal("image_url"),
  image_url: z.strictObject({ url: z.string().min(1, "must not be empty").describe("An http(s) URL or a data: URL of the image") }),
});
export const ZModerationPart = z.discriminatedUnion("type", [ZTextPart, ZImagePart]);
export type ModerationPart = z.infer<typeof ZModerationPart>;

export const ZModerationRequest = z.looseObject({
  model: z.string().min(1).optional().describe("A model of type `moderation`; absent: the first moderation model served (by id) that the caller may use"),
  input: z.union(
    [
      z.string(),
      z.array(z.string()).min(1).max(MAX_MODERATION_INPUTS),
      z.array(ZModerationPart).min(1).max(MAX_MODERATION_INPUTS),
    ],
    { error: "expected a string, a non-empty array of strings, or a non-empty array of `text` and `image_url` parts" },
  ),
});
export type ModerationRequest = z.infer<typeof ZModerationRequest>;

// ---- The answer ----

/** An object with one field per category, each of the given schema (other fields pass, as a node may add some). */
function perCategory<T extends z.ZodType>(schema: T) {
  return z.looseObject(Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, schema])) as Record<ModerationCategory, T>);
}

export const ZModerationResultItem = z.looseObject({
  flagged: z.boolean().describe("Whether any category is flagged"),
  categories: perCategory(z.boolean()),
  category_scores: perCategory(z.number().min(0).max(1)),
  category_applied_input_types: perCategory(z.array(z.enum(["text", "image"])))
    .optional()
    .describe("Which kinds of the input each category's score was computed from (empty: none was); absent when the node's model does not say"),
});

export const ZModerationResult = z.looseObject({
  id: z.string().describe("Starts with `modr-`"),
  model: z.string().describe("The gateway's model id"),
  results: z.array(ZModerationResultItem).describe("One per text of `input` in its order; one for a list of parts"),
});
export type ModerationResult = z.infer<typeof ZModerationResult>;
