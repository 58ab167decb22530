// The worker's side of a video job: take it, have a node render it, keep its progress, store the
// mp4, then complete and settle it (or fail it and release the reservation) in one statement.
// A retried job (its worker crashed) resumes the render it had started on the node, so a crash
// costs neither a second render nor a second charge.
import { hostname } from "node:os";
import { pipeline, Transform, type Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { videoCost } from "../../routing/catalog/media-pricing";
import { db } from "../../infra/db/client";
import { env } from "../../infra/env";
import { GatewayError } from "../../kernel/errors";
import type { VideoJob } from "../../generated/prisma/client";
import { money } from "../../kernel/money";
import { getRoutableNodes, type RoutableNode } from "../../routing/nodes/node-registry";
import { acquire, withFailover } from "../../routing/nodes/router";
import { UpstreamFailure } from "../../providers/upstream-failure";
import { createNodeVideo, deleteNodeVideo, downloadNodeVideo, getNodeVideo, type NodeVideo } from "../../providers/openai-compatible/videos";
import { blobStore } from "../../infra/storage/blob-store";
import { RENDER_RETRY_LIMIT } from "./create-video";
import { completeJob, failJob } from "./job-outcome";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("videos");

export const WORKER_ID = `${hostname()}:${process.pid}`;

/** This worker no longer holds the job (another claimed it, or it ended): it stops, changing nothing. */
class Superseded extends Error {}

/** A failure that retrying cannot mend: the job ends `failed` with this code and message. */
class RenderFailed extends Error {
  /** The node's render, to be deleted there. */
  render?: Render;
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/** Consecutive failed polls of a node before the attempt is given up (and retried later). */
const MAX_POLL_FAILURES = 10;
/** How many times a render the node lost (404) is started again. */
const MAX_RESTARTS = 2;

type Render = { node: RoutableNode; upstreamId: string };

/** Takes the job for this worker; null when it is already final (or gone). */
async function claim(jobId: string): Promise<VideoJob | null> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    UPDATE "VideoJob" SET "status" = 'in_progress', "attempts" = "attempts" + 1, "workerId" = ${WORKER_ID},
      "startedAt" = COALESCE("startedAt", now())
    WHERE "id" = ${jobId} AND "status" IN ('queued', 'in_progress')
    RETURNING "id"`;
  return rows.length ? db.videoJob.findUnique({ where: { id: jobId } }) : null;
}

/** Starts the render on a node that serves the model (failing over), and remembers where. */
async function start(job: VideoJob, signal: AbortSignal): Promise<Render> {
  let routed;
  try {
    const run = await withFailover(
      job.modelId,
      (r) => createNodeVideo(r.node, { model: r.upstreamModel, prompt: job.prompt, seconds: job.seconds, size: job.size, fps: job.fps }, signal),
      signal,
    );
    run.release();
    routed = { node: run.routed.node, upstreamId: run.result.id };
  } catch (err) {
    // The node refused the request itself: its code and message are the job's.
    if (err instanceof GatewayError && err.status < 500 && err.status !== 429) throw new RenderFailed(err.code, err.message);
    throw err;
  }
  await db.videoJob.updateMany({ where: { id: job.id, status: "in_progress" }, data: { nodeId: routed.node.id, upstreamJobId: routed.upstreamId } });
  return routed;
}

/** The render a previous attempt started, when its node is still registered. */
async function resume(job: VideoJob): Promise<Render | null> {
  if (!job.nodeId || !job.upstreamJobId) return null;
  const node = (await getRoutableNodes()).find((n) => n.id === job.nodeId);
  return node ? { node, upstreamId: job.upstreamJobId } : null;
}

/** Counts bytes through; fails past `max`. An error on either side destroys both (pipeline). */
function capped(body: Readable, max: number, counter: { bytes: number }): Readable {
  const counting = new Transform({
    transform(chunk: Buffer, _enc, done) {
      counter.bytes += chunk.length;
      if (counter.bytes > max) done(new RenderFailed("video_too_large", `The node's video is larger than ${max} bytes.`));
      else done(null, chunk);
    },
  });
  return pipeline(body, counting, () => undefined);
}

/** Progress (and ownership): false when the job is no longer this claim's to work on. */
async function stillMine(job: VideoJob, progress?: number): Promise<boolean> {
  const where = { id: job.id, status: "in_progress" as const, attempts: job.attempts };
  if (progress === undefined) return (await db.videoJob.count({ where })) > 0;
  return (await db.videoJob.updateMany({ where, data: { progress } })).count > 0;
}

/** Seconds to bill: what the node reported (else the seconds asked for), at most the seconds asked for. */
function billedSeconds(job: VideoJob, video: NodeVideo): string {
  const reported = money(video.billedSeconds ?? job.seconds).toDecimalPlaces(6);
  return (reported.gt(job.seconds) ? money(job.seconds) : reported).toFixed();
}

async function finish(job: VideoJob, render: Render, video: NodeVideo, signal: AbortSignal): Promise<void> {
  // One key per attempt: a worker that lost the job can never overwrite the video that was billed.
  const key = `videos/${job.id}-${job.attempts}.mp4`;
  const download = await downloadNodeVideo(render.node, render.upstreamId, signal);
  let completed = false;
  try {
    if (download.length !== null && download.length > env.MAX_VIDEO_BYTES) {
      throw new RenderFailed("video_too_large", `The node's video is larger than ${env.MAX_VIDEO_BYTES} bytes.`);
    }
    const counter = { bytes: 0 };
    await blobStore().put(key, capped(download.body, env.MAX_VIDEO_BYTES, counter), "video/mp4");
    if (counter.bytes === 0) throw new RenderFailed("invalid_video", "The node returned an empty video.");
    const seconds = billedSeconds(job, video);
    const cost = videoCost({ perVideoSecond: job.pricePerVideoSecond.toString(), multiplier: job.priceMultiplier.toString(), fps: job.fps }, seconds);
    completed = await completeJob(job.id, job.attempts, { billedSeconds: seconds, cost, contentKey: key, contentBytes: counter.bytes });
    if (!completed) throw new Superseded();
  } finally {
    download.body.on("error", () => undefined).destroy(); // (destroying an unfinished body emits an error)
    if (!completed) await blobStore().delete(key).catch(() => undefined);
  }
}

async function render(job: VideoJob, signal: AbortSignal): Promise<Render> {
  const deadline = job.createdAt.getTime() + env.VIDEO_JOB_TIMEOUT_SECONDS * 1000;
  let current = (await resume(job)) ?? (await start(job, signal));
  let release = acquire(current.node.id);
  let progress = job.progress;
  let failures = 0;
  let restarts = 0;
  try {
    for (;;) {
      if (Date.now() > deadline) throw new RenderFailed("timeout", `The video was not rendered within ${env.VIDEO_JOB_TIMEOUT_SECONDS} seconds. Nothing was charged.`);
      signal.throwIfAborted();
      let video: NodeVideo;
      try {
        video = await getNodeVideo(current.node, current.upstreamId, signal);
        failures = 0;
      } catch (err) {
        if (err instanceof UpstreamFailure && err.status === 404) {
          // The node no longer knows the render (it restarted): start it again, if still ours.
          if (!(await stillMine(job))) throw new Superseded();
          if (++restarts > MAX_RESTARTS) throw new RenderFailed("render_lost", "The node lost the render repeatedly.");
          release();
          current = await start(job, signal);
          release = acquire(current.node.id);
          continue;
        }
        if (signal.aborted || ++failures >= MAX_POLL_FAILURES) throw err;
        await sleep(env.VIDEO_POLL_INTERVAL_MS, undefined, { signal });
        continue;
      }
      if (video.status === "failed") {
        throw new RenderFailed(video.error?.code ?? "render_failed", video.error?.message ?? "The node failed to render the video.");
      }
      if (video.status === "completed") {
        await finish(job, current, video, signal);
        return current;
      }
      if (video.progress > progress) {
        progress = video.progress;
        if (!(await stillMine(job, Math.min(progress, 99)))) throw new Superseded();
      }
      await sleep(env.VIDEO_POLL_INTERVAL_MS, undefined, { signal });
    }
  } catch (err) {
    if (err instanceof RenderFailed) err.render ??= current;
    throw err;
  } finally {
    release();
  }
}

const failureOf = (err: unknown) =>
  err instanceof GatewayError || err instanceof RenderFailed
    ? { code: err.code, message: err.message }
    : { code: "render_failed", message: "The video could not be rendered: the node or the gateway failed repeatedly." };

/**
 * Runs one attempt of a job. Returns normally when the job reached a final state (or already
 * had); throws to have the queue retry it later, except on the last attempt, which fails it.
 */
export async function renderVideoJob(jobId: string, attempt: { retryCount: number; signal: AbortSignal }): Promise<void> {
  const job = await claim(jobId);
  if (!job) return;
  try {
    const done = await render(job, attempt.signal);
    await deleteNodeVideo(done.node, done.upstreamId).catch(() => undefined);
  } catch (err) {
    if (attempt.signal.aborted) throw err; // the queue took the job back (e.g. shutdown): another attempt follows
    if (err instanceof Superseded) return; // another worker has the job, or it ended: not ours to touch
    if (err instanceof RenderFailed) {
      await failJob(jobId, err.code, err.message, job.attempts);
      if (err.render) await deleteNodeVideo(err.render.node, err.render.upstreamId).catch(() => undefined);
      return;
    }
    if (attempt.retryCount >= RENDER_RETRY_LIMIT) {
      const { code, message } = failureOf(err);
      await failJob(jobId, code, message, job.attempts);
      return;
    }
    log.error({ err }, `video ${jobId}: attempt ${attempt.retryCount + 1} failed, will retry`);
    throw err;
  }
}
