// Uploaded images (edits, variations) are decoded with sharp before any node sees them: a file
// sharp cannot read is a 400 naming the field, never a 500. The size limit is the multipart
// parser's (MAX_IMAGE_UPLOAD_BYTES, 413).
import type { Metadata } from "sharp";
import { errors } from "../../kernel/errors";
import type { Upload } from "../../infra/storage/upload";

const FORMATS = new Set(["png", "jpeg", "webp"]);
const MAX_SIDE = 4096;

export type CheckedImage = { format: string; width: number; height: number };

export async function checkImage(file: Upload, param: "image" | "mask"): Promise<CheckedImage> {
  let meta: Metadata;
  const { default: sharp } = await import("sharp"); // loaded on first use: only image edits need it
  try {
    meta = await sharp(file.data, { failOn: "error", limitInputPixels: MAX_SIDE * MAX_SIDE }).metadata();
    // metadata() reads the header only; decode every pixel too (stats() streams through them
    // without keeping the image in memory), so a truncated file is caught.
    await sharp(file.data, { failOn: "error", limitInputPixels: MAX_SIDE * MAX_SIDE }).stats();
  } catch {
    throw errors.invalidRequest(`The \`${param}\` file could not be decoded as an image. It may be corrupted.`, param, "invalid_image");
  }
  if (!meta.format || !FORMATS.has(meta.format) || !meta.width || !meta.height) {
    throw errors.invalidRequest(`Invalid \`${param}\` format: upload a PNG, JPEG or WebP image.`, param, "invalid_image_format");
  }
  return { format: meta.format, width: meta.width, height: meta.height };
}

/** A mask must have the image's dimensions (as OpenAI requires). */
export function checkMask(image: CheckedImage, mask: CheckedImage): void {
  if (image.width !== mask.width || image.height !== mask.height) {
    throw errors.invalidRequest(`The mask (${mask.width}x${mask.height}) must have the same dimensions as the image (${image.width}x${image.height}).`, "mask", "invalid_image");
  }
}
