// A create request checked against the model's `video` block, before anything is reserved or
// queued: every value outside the model's ranges is a 400 naming the param.
import { requireModelType } from "../audio/model-type";
import type { ModelRow } from "../../routing/catalog/model-row";
import { errors } from "../../kernel/errors";
import type { VideoPrice } from "../../routing/catalog/media-pricing";
import type { VideoCreate } from "./schema";

export type VideoSpec = { seconds: number; size: string; fps: number; aspectRatio: string | null; price: VideoPrice };

/** OpenAI's default clip length, moved into the model's range. */
const DEFAULT_SECONDS = 4;

const invalid = (param: string, message: string) => errors.invalidRequest(message, param, "invalid_value");

/** "1280x720" -> [1280, 720]; "16:9" -> [16, 9]. */
const pair = (text: string, sep: string) => text.split(sep).map(Number) as [number, number];

/** Whether `size` has the aspect ratio `w:h` (exactly: 1280x720 is 16:9, 640x480 is not). */
function hasRatio(size: string, ratio: string): boolean {
  const [w, h] = pair(size, "x");
  const [rw, rh] = pair(ratio, ":");
  return w * rh === h * rw;
}

export function videoSpec(row: ModelRow, req: VideoCreate): VideoSpec {
  requireModelType(row, "video", "/v1/videos");
  if (req.input_reference !== undefined) {
    throw invalid("input_reference", "Image-to-video (`input_reference`) is not supported by this gateway yet; send a text prompt only.");
  }
  const sizes = row.videoSizes;
  const smin = row.videoSecondsMin ?? 1;
  const smax = row.videoSecondsMax ?? smin;
  const fmin = row.videoFpsMin ?? 24;
  const fmax = row.videoFpsMax ?? fmin;

  const seconds = req.seconds ?? Math.min(Math.max(DEFAULT_SECONDS, smin), smax);
  if (seconds < smin || seconds > smax) throw invalid("seconds", `\`seconds\` must be between ${smin} and ${smax} for \`${row.id}\`; got ${seconds}.`);

  const fps = req.fps ?? row.videoFpsDefault ?? fmin;
  if (fps < fmin || fps > fmax) throw invalid("fps", `\`fps\` must be between ${fmin} and ${fmax} for \`${row.id}\`; got ${fps}.`);

  const listed = sizes.map((s) => s.size).join(", ");
  let size = req.size;
  if (size !== undefined && !sizes.some((s) => s.size === size)) {
    throw invalid("size", `\`${row.id}\` does not support size ${size}. Supported: ${listed}.`);
  }
  if (req.aspect_ratio !== undefined) {
    const ratio = req.aspect_ratio;
    if (size !== undefined && !hasRatio(size, ratio)) {
      throw invalid("aspect_ratio", `\`aspect_ratio\` ${ratio} does not match size ${size}.`);
    }
    // Without a size, the cheapest supported size of that ratio (sizes are ordered by multiplier).
    size ??= sizes.find((s) => hasRatio(s.size, ratio))?.size;
    if (size === undefined) throw invalid("aspect_ratio", `\`${row.id}\` has no size with aspect ratio ${ratio}. Supported sizes: ${listed}.`);
  }
  size ??= row.videoDefaultSize ?? sizes[0]?.size;
  const sized = sizes.find((s) => s.size === size);
  if (!sized) throw errors.invalidRequest(`\`${row.id}\` has no video sizes configured.`, "model", "model_not_supported");

  return {
    seconds,
    size: sized.size,
    fps,
    aspectRatio: req.aspect_ratio ?? null,
    price: { perVideoSecond: row.pricePerVideoSecond.toString(), multiplier: sized.priceMultiplier.toString(), fps },
  };
}
