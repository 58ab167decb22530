// The public shape of a video job (VideoGenerationJob).
import type { VideoJob } from "../../generated/prisma/client";
import { formatMoney } from "../../kernel/money";

export type VideoJobObject = {
  id: string;
  object: "video.generation.job";
  created_at: number;
  status: VideoJob["status"];
  model: string;
  prompt: string;
  progress: number;
  seconds: number;
  size: string;
  fps: number;
  aspect_ratio: string | null;
  completed_at: number | null;
  expires_at: number | null;
  /** Seconds of video the node reported and the job was billed for (once completed). */
  billed_seconds: number | null;
  /** What the job cost, a decimal string in USD: "0" until it completed, and for ever when it failed. */
  cost: string;
  error?: { code: string; message: string };
};

const unix = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

export function toVideoObject(job: VideoJob): VideoJobObject {
  const object: VideoJobObject = {
    id: job.id,
    object: "video.generation.job",
    created_at: unix(job.createdAt)!,
    status: job.status,
    model: job.modelId,
    prompt: job.prompt,
    progress: job.status === "completed" ? 100 : job.progress,
    seconds: job.seconds,
    size: job.size,
    fps: job.fps,
    aspect_ratio: job.aspectRatio,
    completed_at: unix(job.completedAt),
    expires_at: unix(job.expiresAt),
    billed_seconds: job.billedSeconds === null ? null : Number(job.billedSeconds.toString()),
    cost: job.cost === null ? "0" : formatMoney(job.cost),
  };
  if (job.status === "failed") object.error = { code: job.errorCode ?? "render_failed", message: job.errorMessage ?? "The render failed." };
  return object;
}
