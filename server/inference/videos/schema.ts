// The videos API (part 2.2 of the API reference): its requests, and the job, list and deletion it
// answers with (the content route answers bytes). Checks that need the model (ranges, sizes) are
// in video-spec.ts.
import { z } from "zod";
import { deletedAnswer, listPage, unixSeconds } from "../../kernel/answer-schemas";

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

// ---- Answers ----

/** A video job: what create, retrieve and the list answer. */
export const ZVideoJob = z.strictObject({
  id: z.string().describe("Starts with `video-`"),
  object: z.literal("video.generation.job"),
  created_at: unixSeconds,
  status: z.enum(["queued", "in_progress", "completed", "failed"]),
  model: z.string(),
  prompt: z.string(),
  progress: z.number().describe("0 to 100"),
  seconds: z.number().int(),
  size: z.string(),
  fps: z.number().int(),
  aspect_ratio: z.string().nullable(),
  completed_at: unixSeconds.nullable(),
  expires_at: unixSeconds.nullable().describe("When the job and its video are deleted; set once it finished"),
  billed_seconds: z.number().nullable().describe("Seconds of video the node reported and the job was billed for, once completed"),
  cost: z.string().describe("What the job cost, a decimal string in USD; `0` until completed, and for ever when failed"),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional().describe("Present when failed"),
});

/** GET /v1/videos: a page of jobs. */
export const ZVideoListPage = listPage(ZVideoJob);

/** DELETE /v1/videos/{id}. */
export const ZVideoDeleted = deletedAnswer("video.deleted");
