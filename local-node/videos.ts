// The OpenAI videos API for local-video: POST /v1/videos (JSON or multipart) answers a queued
// video object at once and renders in the background (video-jobs.ts); GET polls it, GET .../content
// downloads the mp4 (with single HTTP ranges), DELETE removes it, GET /v1/videos lists newest first.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, readJson, send } from "./http";
import { modelCard, requireModel } from "./models";
import { readMultipart } from "./multipart";
import type { VideoObject, VideoStore } from "./video-jobs";

export const MAX_VIDEO_PROMPT_CHARS = 32000;
/** OpenAI's default `seconds` ("4"), clamped into the model's range. */
const DEFAULT_SECONDS = 4;

type VideoBlock = {
  default_size: string;
  default_fps: number;
  fps: { min: number; max: number };
  seconds: { min: number; max: number };
  supported_sizes: { size: string }[];
};

const invalid = (param: string, message: string) => new ApiError(400, "invalid_value", `Invalid value for '${param}': ${message}`, param);

/** An integer param given as a JSON number or a numeric string, within [min, max]. */
function intParam(value: unknown, param: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null || value === "") return fallback;
  const n = typeof value === "number" ? value : typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n)) throw invalid(param, `expected an integer between ${min} and ${max}.`);
  if (n < min || n > max) throw invalid(param, `must be between ${min} and ${max}, got ${n}.`);
  return n;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!/^multipart\/form-data/i.test(req.headers["content-type"] ?? "")) return readJson(req);
  const form = await readMultipart(req); // an `input_reference` file is accepted and ignored
  return Object.fromEntries(Object.entries(form.fields).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
}

export async function createVideo(req: IncomingMessage, res: ServerResponse, store: VideoStore): Promise<void> {
  const body = await readBody(req);
  const model = requireModel({ ...body, model: body.model ?? "local-video" }, "video", "v1/videos");
  const block = modelCard(model)!.video as VideoBlock;
  const prompt = body.prompt;
  if (prompt === undefined || prompt === null) throw new ApiError(400, "missing_required_parameter", "Missing required parameter: 'prompt'.", "prompt");
  if (typeof prompt !== "string" || !prompt.trim()) throw invalid("prompt", "expected a non-empty string.");
  if (prompt.length > MAX_VIDEO_PROMPT_CHARS) throw invalid("prompt", `must be at most ${MAX_VIDEO_PROMPT_CHARS} characters.`);
  const fallbackSeconds = Math.min(block.seconds.max, Math.max(block.seconds.min, DEFAULT_SECONDS));
  const seconds = intParam(body.seconds, "seconds", block.seconds.min, block.seconds.max, fallbackSeconds);
  const fps = intParam(body.fps, "fps", block.fps.min, block.fps.max, block.default_fps);
  const sizes = block.supported_sizes.map((s) => s.size);
  const size = body.size ?? block.default_size;
  if (typeof size !== "string" || !sizes.includes(size)) throw invalid("size", `expected one of ${sizes.join(", ")}.`);
  const [width, height] = size.split("x").map(Number) as [number, number];
  send(res, 200, store.create(model, { prompt, width, height, fps, seconds, slow: prompt.includes("[sim:slow]") }));
}

function found(store: VideoStore, id: string): VideoObject {
  const video = store.get(id);
  if (!video) throw new ApiError(404, "video_not_found", `No video found with id '${id}'.`, "video_id");
  return video;
}

export async function getVideo(res: ServerResponse, store: VideoStore, id: string): Promise<void> {
  send(res, 200, found(store, id));
}

export async function deleteVideo(res: ServerResponse, store: VideoStore, id: string): Promise<void> {
  found(store, id);
  await store.delete(id);
  send(res, 200, { id, object: "video.deleted", deleted: true });
}

export async function listVideos(req: IncomingMessage, res: ServerResponse, store: VideoStore): Promise<void> {
  const query = new URL(req.url ?? "/", "http://node").searchParams;
  let all = store.list();
  if (query.get("order") === "asc") all = all.reverse();
  const after = query.get("after");
  if (after) all = all.slice(all.findIndex((v) => v.id === after) + 1);
  const limit = intParam(query.get("limit") ?? undefined, "limit", 1, 100, 20);
  const data = all.slice(0, limit);
  send(res, 200, { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: all.length > limit });
}

/** bytes=a-b, a- or -n against `size`; null when the header is absent, "bad" when unsatisfiable. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | "bad" {
  const m = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!header) return null;
  if (!m || (!m[1] && !m[2])) return "bad";
  const start = m[1] ? Number(m[1]) : Math.max(0, size - Number(m[2]));
  const end = m[1] && m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
  return start > end || start >= size ? "bad" : { start, end };
}

export async function videoContent(req: IncomingMessage, res: ServerResponse, store: VideoStore, id: string): Promise<void> {
  const video = found(store, id);
  const variant = new URL(req.url ?? "/", "http://node").searchParams.get("variant") ?? "video";
  if (variant !== "video") throw invalid("variant", "the local node only renders the 'video' variant.");
  const file = store.file(id);
  if (!file) throw new ApiError(409, "video_not_ready", `Video '${id}' is ${video.status}; its content is available once it is completed.`, "video_id");
  const size = (await stat(file)).size;
  const range = parseRange(req.headers.range, size);
  const headers = { "content-type": "video/mp4", "accept-ranges": "bytes" };
  if (range === "bad") {
    res.writeHead(416, { ...headers, "content-range": `bytes */${size}` });
    return void res.end();
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  res.writeHead(range ? 206 : 200, {
    ...headers,
    "content-length": String(end - start + 1),
    ...(range ? { "content-range": `bytes ${start}-${end}/${size}` } : {}),
  });
  createReadStream(file, { start, end }).on("error", (err) => res.destroy(err)).pipe(res);
}
