// Video render workers and the sweeps of video jobs. They run inline in each gateway process
// (VIDEO_WORKERS at a time) and in `npm run worker` processes; any number of them on one
// database take each job once (pg-boss hands a job to one worker; job-outcome.ts guards the end).
import { env } from "../../infra/env";
import { jobQueue, QUEUES, workOneAtATime } from "../../infra/jobs/boss";
import { blobStore } from "../../infra/storage/blob-store";
import { db } from "../../infra/db/client";
import type { RenderJobData } from "./create-video";
import { failAbandonedJobs, failTimedOutJobs } from "./job-outcome";
import { settlePendingVideoPayments } from "../../admission/x402/video-payment";
import { renderVideoJob } from "./render-video";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("videos");

/** Starts `concurrency` workers in this process, each rendering one job at a time. */
export async function startVideoWorkers(concurrency: number): Promise<void> {
  if (concurrency <= 0) return;
  await workOneAtATime<RenderJobData>(await jobQueue(), QUEUES.videoRender, concurrency, (job) =>
    renderVideoJob(job.data.jobId, { retryCount: job.retryCount, signal: job.signal }),
  );
}

/** Deletes the videos of jobs past their retention; the jobs themselves then answer 404. */
export async function deleteExpiredVideos(): Promise<number> {
  const expired = await db.videoJob.findMany({
    where: { expiresAt: { lt: new Date() }, contentKey: { not: null } },
    select: { id: true, contentKey: true },
    orderBy: { expiresAt: "asc" },
    take: 500,
  });
  let deleted = 0;
  for (const job of expired) {
    try {
      await blobStore().delete(job.contentKey!);
      await db.videoJob.update({ where: { id: job.id }, data: { contentKey: null } });
      deleted++;
    } catch (err) {
      log.error({ err }, `video sweep: could not delete the video of ${job.id}`);
    }
  }
  return deleted;
}

let sweeping: NodeJS.Timeout | undefined;
let orphanSweeping: NodeJS.Timeout | undefined;

/**
 * Every JOB_MONITOR_INTERVAL_SECONDS: fails jobs past VIDEO_JOB_TIMEOUT_SECONDS or out of
 * attempts, and deletes expired videos. Every 10 minutes: deletes any video file older than a
 * job can keep one (retention + timeout), which catches the files of attempts that crashed.
 */
export function startVideoSweeps(): void {
  if (sweeping) return;
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      // The abandoned-job sweep reads pg-boss's tables: with VIDEO_WORKERS=0 nothing else here has created them.
      await jobQueue();
      await failTimedOutJobs();
      await failAbandonedJobs();
      await settlePendingVideoPayments();
      await deleteExpiredVideos();
    } finally {
      running = false;
    }
  };
  sweeping = setInterval(() => sweep().catch((err) => log.error({ err }, "video sweep failed")), env.JOB_MONITOR_INTERVAL_SECONDS * 1000);
  sweeping.unref();
  const oldest = (env.VIDEO_RETENTION_SECONDS + env.VIDEO_JOB_TIMEOUT_SECONDS + 600) * 1000;
  orphanSweeping = setInterval(
    () => blobStore().deleteOlderThan("videos", oldest).catch((err) => log.error({ err }, "video file sweep failed")),
    10 * 60_000,
  );
  orphanSweeping.unref();
}

export function stopVideoSweeps(): void {
  clearInterval(sweeping);
  clearInterval(orphanSweeping);
  sweeping = orphanSweeping = undefined;
}
