// Uploaded images (edits, variations): decoded by sharp with a pixel limit, PNG/JPEG/WebP only;
// anything else, or a corrupt file, is 400 naming the parameter.
import { createHash } from "node:crypto";
import sharp, { type Metadata } from "sharp";
import { ApiError } from "./http";
import type { UploadedFile } from "./multipart";

export const MAX_INPUT_PIXELS = 4096 * 4096;
const FORMATS = new Set(["png", "jpeg", "webp"]);

export type InputImage = { data: Buffer; width: number; height: number; hasAlpha: boolean; hash: string };

/** The file as raw RGBA pixels. */
export async function readImage(file: UploadedFile | undefined, param: string): Promise<InputImage> {
  if (!file) throw new ApiError(400, "missing_required_parameter", `Missing required parameter: '${param}'.`, param);
  const bad = (why: string) => new ApiError(400, "invalid_image", `The '${param}' file ${why}.`, param);
  let meta: Metadata;
  try {
    meta = await sharp(file.data, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch {
    throw bad("is not a valid PNG, JPEG or WebP image");
  }
  if (!FORMATS.has(meta.format ?? "")) throw bad(`has format ${meta.format}; use PNG, JPEG or WebP`);
  if (!meta.width || !meta.height || meta.width * meta.height > MAX_INPUT_PIXELS) throw bad(`must have at most ${MAX_INPUT_PIXELS} pixels`);
  try {
    const { data, info } = await sharp(file.data, { limitInputPixels: MAX_INPUT_PIXELS }).rotate().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const hash = createHash("sha256").update(file.data).digest("hex");
    return { data, width: info.width, height: info.height, hasAlpha: Boolean(meta.hasAlpha), hash };
  } catch {
    throw bad("could not be decoded (corrupt or truncated)");
  }
}
