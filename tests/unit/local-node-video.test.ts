// The built-in node's videos API over real HTTP (official SDK and raw fetch): real H.264 mp4s at
// the requested size, fps and duration, progress while rendering, the [sim:fail] and [sim:slow]
// triggers, validation, 409 before completion, ranges, delete, 404s. Starts its own nodes; no gateway.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FFPROBE } from "../../local-node/ffmpeg";
import { startLocalNode, type RunningNode } from "../../local-node/listen";

type Video = { id: string; status: string; progress: number; error: { code: string; message: string } | null; [k: string]: unknown };

let node: RunningNode;
let openai: OpenAI;
let dir: string;

beforeAll(async () => {
  node = await startLocalNode();
  openai = new OpenAI({ apiKey: "x", baseURL: `${node.url}/v1`, maxRetries: 0 });
  dir = await mkdtemp(join(tmpdir(), "video-test-"));
});
afterAll(async () => {
  await node?.close();
  await rm(dir, { recursive: true, force: true });
});

const post = (url: string, body: unknown) =>
  fetch(`${url}/v1/videos`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const get = async (url: string, id: string): Promise<Video> => (await fetch(`${url}/v1/videos/${id}`)).json() as Promise<Video>;

/** Polls until completed or failed; returns the final object and every progress value seen. */
async function poll(url: string, id: string, timeoutMs = 20_000): Promise<{ video: Video; seen: Video[] }> {
  const seen: Video[] = [];
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const video = await get(url, id);
    seen.push(video);
    if (video.status === "completed" || video.status === "failed") return { video, seen };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`video ${id} did not finish`);
}

async function probe(bytes: Buffer) {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.mp4`);
  await writeFile(path, bytes);
  const { stdout } = await promisify(execFile)(FFPROBE, ["-v", "error", "-show_entries", "format=duration,format_name:stream=codec_name,width,height,r_frame_rate,pix_fmt", "-of", "json", path]);
  const info = JSON.parse(stdout) as { format: { duration: string; format_name: string }; streams: Record<string, string | number>[] };
  return { ...info.streams[0]!, duration: Number(info.format.duration), format: info.format.format_name };
}

describe("local node videos", () => {
  it("SDK: create (multipart) answers queued at once, then a real H.264 mp4 of the requested size, fps and seconds", async () => {
    const created = await openai.videos.create({ model: "local-video", prompt: "A paper boat on a rainy street", seconds: "2", size: "640x360" as never, fps: 15 } as never);
    expect(created).toMatchObject({ object: "video", model: "local-video", status: "queued", progress: 0, seconds: "2", size: "640x360", fps: 15, error: null, completed_at: null });
    expect(created.id).toMatch(/^video_[0-9a-f]{32}$/);
    expect(created.expires_at).toBeGreaterThan(created.created_at);
    const { video } = await poll(node.url, created.id);
    expect(video).toMatchObject({ status: "completed", progress: 100, error: null });
    expect(video.completed_at).toBeGreaterThanOrEqual(created.created_at);
    expect(await openai.videos.retrieve(created.id)).toMatchObject({ id: created.id, status: "completed" });
    const res = await openai.videos.downloadContent(created.id);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
    const info = await probe(bytes);
    expect(info).toMatchObject({ codec_name: "h264", width: 640, height: 360, r_frame_rate: "15/1", pix_fmt: "yuv420p" });
    expect(info.format).toContain("mp4");
    expect(Math.abs(info.duration - 2)).toBeLessThanOrEqual(1 / 15);
    expect(video.billed_seconds).toBe(Math.round(info.duration * 1000) / 1000);
  }, 30_000);

  it("raw JSON: integer seconds, the smallest size and fps; defaults are 640x360 at 24 fps", async () => {
    const res = await post(node.url, { model: "local-video", prompt: "Tiny", seconds: 1, size: "320x180", fps: 8 });
    expect(res.status).toBe(200);
    const created = (await res.json()) as Video;
    expect(created).toMatchObject({ seconds: "1", size: "320x180", fps: 8 });
    const defaults = (await (await post(node.url, { model: "local-video", prompt: "Defaults", seconds: "1" })).json()) as Video;
    expect(defaults).toMatchObject({ size: "640x360", fps: 24, seconds: "1" });
    const { video } = await poll(node.url, created.id);
    expect(video.status).toBe("completed");
    const info = await probe(Buffer.from(await (await fetch(`${node.url}/v1/videos/${created.id}/content`)).arrayBuffer()));
    expect(info).toMatchObject({ codec_name: "h264", width: 320, height: 180, r_frame_rate: "8/1" });
    expect(Math.abs(info.duration - 1)).toBeLessThanOrEqual(1 / 8);
    expect((await poll(node.url, defaults.id)).video.billed_seconds).toBeCloseTo(1, 1);
  }, 30_000);

  it("[sim:slow] at 1280x720: in_progress with progress strictly between 0 and 100, 409 until completed, then ranges", async () => {
    const created = (await (await post(node.url, { model: "local-video", prompt: "Slow render [sim:slow]", seconds: "3", size: "1280x720" })).json()) as Video;
    const early = await fetch(`${node.url}/v1/videos/${created.id}/content`);
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ error: { code: "video_not_ready", type: "invalid_request_error" } });
    const { video, seen } = await poll(node.url, created.id);
    expect(video.status).toBe("completed");
    expect(seen.some((v) => v.status === "in_progress" && v.progress > 0 && v.progress < 100)).toBe(true);
    const progress = seen.map((v) => v.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b)); // never goes back
    const full = Buffer.from(await (await fetch(`${node.url}/v1/videos/${created.id}/content`)).arrayBuffer());
    const part = await fetch(`${node.url}/v1/videos/${created.id}/content`, { headers: { range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${full.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(full.subarray(100, 200))).toBe(true);
    expect((await fetch(`${node.url}/v1/videos/${created.id}/content`, { headers: { range: `bytes=${full.length}-` } })).status).toBe(416);
    const info = await probe(full);
    expect(info).toMatchObject({ width: 1280, height: 720, r_frame_rate: "24/1" });
    expect(Math.abs(info.duration - 3)).toBeLessThanOrEqual(1 / 24);
  }, 30_000);

  it("[sim:fail] ends failed with simulated_failure, and its content stays 409", async () => {
    const created = (await (await post(node.url, { model: "local-video", prompt: "Break [sim:fail]", seconds: "1" })).json()) as Video;
    const { video } = await poll(node.url, created.id);
    expect(video).toMatchObject({ status: "failed", completed_at: null, error: { code: "simulated_failure" } });
    expect(video.error!.message).toContain("[sim:fail]");
    expect(video.billed_seconds).toBeUndefined();
    expect((await fetch(`${node.url}/v1/videos/${created.id}/content`)).status).toBe(409);
  }, 15_000);

  it("validation errors are 400 in OpenAI's shape naming the param", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ seconds: "2" }, "prompt"],
      [{ prompt: "" }, "prompt"],
      [{ prompt: "x", seconds: 0 }, "seconds"],
      [{ prompt: "x", seconds: "11" }, "seconds"],
      [{ prompt: "x", seconds: "2.5" }, "seconds"],
      [{ prompt: "x", size: "1920x1080" }, "size"],
      [{ prompt: "x", size: 640 }, "size"],
      [{ prompt: "x", fps: 7 }, "fps"],
      [{ prompt: "x", fps: "31" }, "fps"],
    ];
    for (const [body, param] of cases) {
      const res = await post(node.url, { model: "local-video", ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const { error } = (await res.json()) as { error: Record<string, unknown> };
      expect(error).toMatchObject({ param, type: "invalid_request_error" });
      expect(error.message).toContain(param);
    }
    const chat = await post(node.url, { model: "local-chat-sim", prompt: "x" });
    expect(chat.status).toBe(404);
    expect(await chat.json()).toMatchObject({ error: { code: "model_not_found", param: "model" } });
  });

  it("lists newest first; DELETE removes the video; unknown ids are 404 video_not_found", async () => {
    const a = (await (await post(node.url, { model: "local-video", prompt: "First", seconds: "1", size: "320x180" })).json()) as Video;
    const b = (await (await post(node.url, { model: "local-video", prompt: "Second", seconds: "1", size: "320x180" })).json()) as Video;
    const list = (await (await fetch(`${node.url}/v1/videos`)).json()) as { object: string; data: Video[]; has_more: boolean };
    expect(list).toMatchObject({ object: "list", has_more: false });
    const ids = list.data.map((v) => v.id);
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    const page = await openai.videos.list({ limit: 1 });
    expect(page.data.map((v) => v.id)).toEqual([b.id]);
    await poll(node.url, a.id);
    expect(await openai.videos.delete(a.id)).toEqual({ id: a.id, object: "video.deleted", deleted: true });
    for (const path of [a.id, `${a.id}/content`, "video_nope", "video_nope/content"]) {
      const res = await fetch(`${node.url}/v1/videos/${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: "video_not_found", type: "invalid_request_error" } });
    }
    expect((await fetch(`${node.url}/v1/videos/${a.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await (await fetch(`${node.url}/v1/videos`)).json()).data.some((v: Video) => v.id === a.id)).toBe(false);
    await poll(node.url, b.id);
  }, 20_000);

  it("honours the start delay and the concurrency limit: a second job waits queued", async () => {
    const slow = await startLocalNode({ videoDelayMs: 300, videoConcurrency: 1 });
    try {
      const a = (await (await post(slow.url, { model: "local-video", prompt: "A [sim:slow]", seconds: "1", size: "320x180" })).json()) as Video;
      const b = (await (await post(slow.url, { model: "local-video", prompt: "B", seconds: "1", size: "320x180" })).json()) as Video;
      expect((await get(slow.url, a.id)).status).toBe("queued"); // within the 300 ms delay
      await new Promise((r) => setTimeout(r, 1200));
      expect((await get(slow.url, a.id)).status).toBe("in_progress");
      expect((await get(slow.url, b.id)).status).toBe("queued");
      expect((await poll(slow.url, a.id)).video.status).toBe("completed");
      expect((await poll(slow.url, b.id)).video.status).toBe("completed");
    } finally {
      await slow.close();
    }
  }, 20_000);
});
