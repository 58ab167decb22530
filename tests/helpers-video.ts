// Video job fixtures: poll a job to its end, read the workspace's money, probe an mp4.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import Decimal from "decimal.js";
import type OpenAI from "openai";
import { FFPROBE } from "../local-node/ffmpeg";
import { db } from "../server/infra/db/client";

export type Job = {
  id: string;
  object: string;
  status: "queued" | "in_progress" | "completed" | "failed";
  model: string;
  progress: number;
  seconds: number;
  size: string;
  fps: number;
  created_at: number;
  completed_at: number | null;
  expires_at: number | null;
  billed_seconds: number | null;
  cost: string;
  error?: { code: string; message: string };
};

/** Creates a job through the SDK (its types know OpenAI's fields; ours go through as they are). */
export async function createJob(openai: OpenAI, body: Record<string, unknown>): Promise<Job> {
  return (await openai.videos.create(body as never)) as unknown as Job;
}

export async function getJob(openai: OpenAI, id: string): Promise<Job> {
  return (await openai.videos.retrieve(id)) as unknown as Job;
}

/** Polls until the job is final; returns it and every state seen on the way. */
export async function waitForJob(openai: OpenAI, id: string, timeoutMs = 60_000): Promise<{ job: Job; seen: Job[] }> {
  const seen: Job[] = [];
  const end = Date.now() + timeoutMs;
  for (;;) {
    const job = await getJob(openai, id);
    seen.push(job);
    if (job.status === "completed" || job.status === "failed") return { job, seen };
    if (Date.now() > end) throw new Error(`job ${id} still ${job.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function balanceOf(workspaceId: string): Promise<Decimal> {
  const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
  return new Decimal(ws.balance.toString());
}

/** seconds × fps ÷ 24 × per_video_second × multiplier, half-even to 18 places (local-video: 0.05 USD/s). */
export function expectedCost(seconds: number | string, fps: number, multiplier: string, perSecond = "0.05"): Decimal {
  return new Decimal(seconds).times(fps).times(perSecond).times(multiplier).dividedBy(24).toDecimalPlaces(18, Decimal.ROUND_HALF_EVEN);
}

export const MULTIPLIER: Record<string, string> = { "320x180": "0.5", "640x360": "1", "1280x720": "2.5" };

/** ffprobe's view of an mp4: codec, size, frame rate and duration of its video stream. */
export async function probeVideo(file: string): Promise<{ codec: string; width: number; height: number; fps: string; duration: number }> {
  const { stdout } = await promisify(execFile)(FFPROBE, [
    "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height,r_frame_rate:format=duration", "-of", "json", file,
  ]);
  const info = JSON.parse(stdout) as { streams: { codec_name: string; width: number; height: number; r_frame_rate: string }[]; format: { duration: string } };
  const s = info.streams[0]!;
  return { codec: s.codec_name, width: s.width, height: s.height, fps: s.r_frame_rate, duration: Number(info.format.duration) };
}
