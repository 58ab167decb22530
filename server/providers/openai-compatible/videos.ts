// OpenAI's videos API on a node: create a render, poll it, download the mp4, delete it. The
// node's video object is mapped to what a worker needs; fields a node leaves out stay null.
import type { Readable } from "node:stream";
import { UpstreamFailure } from "../upstream-failure";
import { postJson, request, type UpstreamTarget } from "../http";

export type NodeVideoStatus = "queued" | "in_progress" | "completed" | "failed";

export type NodeVideo = {
  id: string;
  status: NodeVideoStatus;
  progress: number;
  /** Seconds the node bills for (`billed_seconds`), else the length it states (`seconds`). */
  billedSeconds: number | null;
  error: { code: string; message: string } | null;
};

export type NodeVideoRequest = { model: string; prompt: string; seconds: number; size: string; fps: number };

const STATUSES = new Set<NodeVideoStatus>(["queued", "in_progress", "completed", "failed"]);

function finite(value: unknown): number | null {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : null;
}

function toNodeVideo(raw: unknown): NodeVideo {
  const v = (raw ?? {}) as Record<string, unknown>;
  const status = String(v.status) as NodeVideoStatus;
  if (typeof v.id !== "string" || !STATUSES.has(status)) {
    throw new UpstreamFailure("protocol", "the node answered something that is not a video object");
  }
  const err = (v.error ?? null) as { code?: unknown; message?: unknown } | null;
  return {
    id: v.id,
    status,
    progress: Math.min(100, Math.max(0, Math.floor(finite(v.progress) ?? 0))),
    billedSeconds: finite(v.billed_seconds) ?? finite(v.seconds),
    error: err ? { code: String(err.code ?? "render_failed"), message: String(err.message ?? "The node failed to render the video.") } : null,
  };
}

export async function createNodeVideo(target: UpstreamTarget, req: NodeVideoRequest, signal?: AbortSignal): Promise<NodeVideo> {
  const body = JSON.stringify({ model: req.model, prompt: req.prompt, seconds: String(req.seconds), size: req.size, fps: req.fps });
  const res = await postJson(target, "/videos", body, signal);
  return toNodeVideo(await res.body.json());
}

export async function getNodeVideo(target: UpstreamTarget, id: string, signal?: AbortSignal): Promise<NodeVideo> {
  const res = await request(target, "GET", `/videos/${encodeURIComponent(id)}`, { headers: { accept: "application/json" }, signal });
  return toNodeVideo(await res.body.json());
}

/** The rendered mp4 as a stream, with its length when the node sent one. */
export async function downloadNodeVideo(target: UpstreamTarget, id: string, signal?: AbortSignal): Promise<{ body: Readable; length: number | null }> {
  const res = await request(target, "GET", `/videos/${encodeURIComponent(id)}/content`, { signal });
  const length = finite(res.headers["content-length"]);
  return { body: res.body, length };
}

/** Frees the node's copy; a node that already forgot the video is fine. */
export async function deleteNodeVideo(target: UpstreamTarget, id: string): Promise<void> {
  try {
    const res = await request(target, "DELETE", `/videos/${encodeURIComponent(id)}`);
    await res.body.dump();
  } catch (err) {
    if (!(err instanceof UpstreamFailure && err.status === 404)) throw err;
  }
}
