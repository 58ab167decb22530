// POST /v1/images/edits and /v1/images/variations (model local-image), multipart. An edit really
// applies the mask: where the mask is transparent the image takes newly rendered content seeded by
// the prompt, where it is opaque the original pixels stay (partial alpha blends). Without a mask
// the new content is blended at 50% over the whole image. Variations really derive from the input:
// a hue rotation, crop, blur and mirror seeded by the image's hash and the variation's index.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Sharp } from "sharp";
import { z } from "zod";
import { ApiError, send } from "./http";
import { readImage, type InputImage } from "./image-input";
import { encodeImage, fromRaw, renderRaw, type OutputFormat } from "./image-render";
import { ImageOptions, MAX_PROMPT_CHARS, imageModel, outputFormat } from "./images";
import { filesOf, readMultipart } from "./multipart";
import { seededRng } from "./random";
import { parseRequest, parseSize } from "./validate";

const EditRequest = z.looseObject({ ...ImageOptions, prompt: z.string().min(1, "must not be empty").max(MAX_PROMPT_CHARS) });
const VariationRequest = z.looseObject(ImageOptions);

/** Mixes `fresh` into `image` by the mask's alpha: alpha 0 -> fresh, 255 -> image. */
export function applyMask(image: InputImage, fresh: Buffer, mask: InputImage | null): Buffer {
  const out = Buffer.alloc(image.data.length);
  for (let p = 0; p < image.data.length; p += 4) {
    const keep = mask ? mask.data[p + 3]! / 255 : 0.5;
    for (let c = 0; c < 4; c++) out[p + c] = Math.round(image.data[p + c]! * keep + fresh[p + c]! * (1 - keep));
  }
  return out;
}

async function encodeAll(images: Sharp[], format: OutputFormat, compression?: number | null) {
  return Promise.all(images.map(async (img) => ({ b64_json: (await encodeImage(img, format, compression ?? undefined)).toString("base64") })));
}

function reply(res: ServerResponse, data: object[], format: OutputFormat, width: number, height: number): void {
  send(res, 200, { created: Math.floor(Date.now() / 1000), data, output_format: format, size: `${width}x${height}` });
}

export async function imageEdits(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readMultipart(req);
  const model = imageModel(form.fields, "v1/images/edits");
  const request = parseRequest(EditRequest, { ...form.fields, model });
  const format = outputFormat(request);
  const image = await readImage(filesOf(form, "image")[0], "image");
  const maskFile = filesOf(form, "mask")[0];
  const mask = maskFile ? await readImage(maskFile, "mask") : null;
  if (mask && !mask.hasAlpha) throw new ApiError(400, "invalid_image", "The mask must be a PNG with an alpha channel.", "mask");
  if (mask && (mask.width !== image.width || mask.height !== image.height)) {
    throw new ApiError(400, "invalid_image", `The mask is ${mask.width}x${mask.height} but the image is ${image.width}x${image.height}; they must match.`, "mask");
  }
  const target = parseSize(request.size) ?? { width: image.width, height: image.height };
  const images: Sharp[] = [];
  for (let i = 0; i < (request.n ?? 1); i++) {
    const fresh = await renderRaw(request.prompt, i, image.width, image.height, false, `edit\0${image.hash}`);
    const mixed = fromRaw(applyMask(image, fresh, mask), image.width, image.height);
    const sized = target.width === image.width && target.height === image.height ? mixed : mixed.resize(target.width, target.height, { fit: "fill" });
    images.push(sized);
  }
  const data = (await encodeAll(images, format, request.output_compression)).map((d) => ({ ...d, revised_prompt: request.prompt }));
  reply(res, data, format, target.width, target.height);
}

/** Variation `index` of `image`: hue, saturation and brightness shift, a crop, a blur, maybe a mirror. */
export async function variation(image: InputImage, index: number, width: number, height: number): Promise<Sharp> {
  const rng = seededRng(`variation\0${image.hash}\0${index}`);
  const keep = 0.78 + rng.next() * 0.17;
  const w = Math.max(1, Math.round(image.width * keep));
  const h = Math.max(1, Math.round(image.height * keep));
  const left = rng.int(0, image.width - w);
  const top = rng.int(0, image.height - h);
  let pipeline = fromRaw(image.data, image.width, image.height)
    .extract({ left, top, width: w, height: h })
    .modulate({ hue: rng.int(30, 330), saturation: 0.8 + rng.next() * 0.5, brightness: 0.9 + rng.next() * 0.2 })
    .blur(0.4 + rng.next() * 1.2);
  if (rng.next() < 0.5) pipeline = pipeline.flop();
  const raw = await pipeline.resize(width, height, { fit: "cover" }).ensureAlpha().raw().toBuffer();
  return fromRaw(raw, width, height);
}

export async function imageVariations(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readMultipart(req);
  const model = imageModel(form.fields, "v1/images/variations");
  const request = parseRequest(VariationRequest, { ...form.fields, model });
  const format = outputFormat(request);
  const image = await readImage(filesOf(form, "image")[0], "image");
  const target = parseSize(request.size) ?? { width: image.width, height: image.height };
  const images: Sharp[] = [];
  for (let i = 0; i < (request.n ?? 1); i++) images.push(await variation(image, i, target.width, target.height));
  reply(res, await encodeAll(images, format, request.output_compression), format, target.width, target.height);
}
