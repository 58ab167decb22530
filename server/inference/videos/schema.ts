// Requests of the videos API. Checks that need the model (ranges, sizes) are in video-spec.ts.
import { z } from "zod";

/** A whole number, also accepted as a string of digits (the OpenAI SDK sends `seconds: "4"`). */
const wholeNumber = z.union([
  z.number().int("must be a whole number"),
  z.string().regex(/^\d+$/, "must be a whole number").transform(Number),
]);

/** POST /v1/videos (JSON). */
export const ZVideoCreate = z.object({
  model: z.string().min(1, "must not be empty"),
  prompt: z.string().min(1, "must not be empty").max(32000),
  seconds: wholeNumber.optional(),
  size: z.string().regex(/^\d+x\d+$/, "must be <width>x<height>, e.g. 1280x720").optional(),
  aspect_ratio: z.string().regex(/^[1-9]\d*:[1-9]\d*$/, "must be <width>:<height>, e.g. 16:9").optional(),
  /** An extension: frames per second, within the model's `video.fps` range (default: the model's). */
  fps: wholeNumber.optional(),
  /** Image-to-video input: not served by this gateway yet (answered 400, not ignored). */
  input_reference: z.unknown().optional(),
  user: z.string().optional(),
});
export type VideoCreate = z.infer<typeof ZVideoCreate>;

export const ZVideoId = z.object({ id: z.string().min(1) });

/** GET /v1/videos: newest first by default, cursor `after` = the last id of the previous page. */
export const ZVideoList = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().min(1).optional(),
  order: z.enum(["asc", "desc"]).default("desc"),
});
export type VideoList = z.infer<typeof ZVideoList>;

/** GET /v1/videos/{id}/content: `range` is the request's Range header. */
export const ZVideoContent = ZVideoId.extend({
  variant: z.enum(["video", "thumbnail", "spritesheet"]).default("video"),
  range: z.string().optional(),
});
export type VideoContentRequest = z.infer<typeof ZVideoContent>;
