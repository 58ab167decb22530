// POST /v1/moderations: local-moderation (moderation-classifier.ts) with OpenAI's input forms: a
// string or a list of strings (one result each), or a list of `text` and `image_url` parts (one
// result for all). Image parts are accepted but not classified, which each result's
// `category_applied_input_types` shows; an input with no text at all is refused rather than
// answered "not flagged" for images that were never looked at.
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { randomBytes } from "node:crypto";
import { ApiError, readJson, send } from "./http";
import { moderationResult } from "./moderation-classifier";
import { modelCard, requireModel } from "./models";
import { countTokens } from "./tokenizer";
import { parseRequest } from "./validate";

const MAX_INPUTS = 2048;

const ImageUrl = z
  .string()
  .refine((url) => /^https?:\/\//i.test(url) || /^data:image\/[\w.+-]+;base64,/i.test(url), "expected an http(s) URL or a data:image/...;base64, URL");
const Part = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text"), text: z.string() }),
  z.strictObject({ type: z.literal("image_url"), image_url: z.strictObject({ url: ImageUrl }) }),
]);

const ModerationRequest = z.looseObject({
  model: z.string(),
  input: z.union([z.string(), z.array(z.string()).min(1).max(MAX_INPUTS), z.array(Part).min(1).max(MAX_INPUTS)], {
    error: "expected a string, a non-empty array of strings, or a non-empty array of text and image_url parts",
  }),
});

/** The texts to classify together, one list per result. */
function resultTexts(input: z.infer<typeof ModerationRequest>["input"]): string[][] {
  if (typeof input === "string") return [[input]];
  if (input.every((item) => typeof item === "string")) return (input as string[]).map((text) => [text]);
  const parts = input as z.infer<typeof Part>[];
  const texts = parts.flatMap((p) => (p.type === "text" ? [p.text] : []));
  if (!texts.length) {
    throw new ApiError(400, "unsupported_input", "local-moderation classifies text only: 'input' has no text part, and its image_url parts cannot be classified.", "input");
  }
  return [texts];
}

export async function moderations(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  const model = requireModel(body, "moderation", "v1/moderations");
  const request = parseRequest(ModerationRequest, body);
  const inputs = resultTexts(request.input);
  // What one result reads together must fit the model's context, as a trained model's would have to.
  const limit = Number(modelCard(model)?.context_length ?? 32768);
  inputs.forEach((texts, i) => {
    const tokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
    const where = inputs.length > 1 ? `'input[${i}]'` : "'input'";
    if (tokens > limit) throw new ApiError(400, "context_length_exceeded", `${where} has ${tokens} tokens; this model's maximum is ${limit}.`, "input");
  });
  const results = inputs.map(moderationResult);
  send(res, 200, { id: `modr-${randomBytes(16).toString("hex")}`, model, results });
}
