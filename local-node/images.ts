// POST /v1/images/generations (model local-image): real PNG/JPEG/WebP files rendered
// deterministically from the prompt (image-render.ts). Always answers b64_json; a client asking
// for "url" gets b64_json too (the gateway turns images into its own URLs).
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { ApiError, readJson, send } from "./http";
import { encodeImage, fromRaw, renderRaw, type OutputFormat } from "./image-render";
import { requireModel } from "./models";
import { IMAGE_SIZES, numberField, parseRequest, parseSize } from "./validate";

export const MAX_PROMPT_CHARS = 32000;
export const DEFAULT_SIZE = { width: 1024, height: 1024 };

/** Fields shared by generations, edits and variations (multipart sends them as strings). */
export const ImageOptions = {
  model: z.string(),
  n: numberField(z.number().int().min(1).max(10)).nullish(),
  size: z.enum(IMAGE_SIZES).nullish(),
  response_format: z.enum(["b64_json", "url"]).nullish(),
  output_format: z.enum(["png", "jpeg", "webp"]).nullish(),
  output_compression: numberField(z.number().int().min(0).max(100)).nullish(),
  background: z.enum(["transparent", "opaque", "auto"]).nullish(),
  quality: z.enum(["standard", "hd", "low", "medium", "high", "auto"]).nullish(),
  user: z.string().nullish(),
};

const GenerationRequest = z.looseObject({
  ...ImageOptions,
  prompt: z.string().min(1, "must not be empty").max(MAX_PROMPT_CHARS, `must be at most ${MAX_PROMPT_CHARS} characters`),
  style: z.enum(["vivid", "natural"]).nullish(),
});

/** The body's model (defaulting to local-image, as OpenAI defaults to its own), checked. */
export function imageModel(body: Record<string, unknown>, endpoint: string): string {
  return requireModel({ ...body, model: body.model ?? "local-image" }, "image", endpoint);
}

/** Output format, refusing a transparent background in a format without alpha. */
export function outputFormat(request: { output_format?: OutputFormat | null; background?: string | null }): OutputFormat {
  const format = request.output_format ?? "png";
  if (request.background === "transparent" && format === "jpeg") {
    throw new ApiError(400, "invalid_value", "A transparent background needs output_format png or webp.", "background");
  }
  return format;
}

export async function imageGenerations(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  const model = imageModel(body, "v1/images/generations");
  const request = parseRequest(GenerationRequest, { ...body, model });
  const format = outputFormat(request);
  const { width, height } = parseSize(request.size) ?? DEFAULT_SIZE;
  const transparent = request.background === "transparent";
  const data = [];
  for (let i = 0; i < (request.n ?? 1); i++) {
    const raw = await renderRaw(request.prompt, i, width, height, transparent);
    const bytes = await encodeImage(fromRaw(raw, width, height), format, request.output_compression ?? undefined);
    data.push({ b64_json: bytes.toString("base64"), revised_prompt: request.prompt });
  }
  send(res, 200, {
    created: Math.floor(Date.now() / 1000),
    data,
    background: transparent ? "transparent" : "opaque",
    output_format: format,
    quality: request.quality ?? "auto",
    size: `${width}x${height}`,
  });
}
