// Video render workers and the sweeps of video jobs. They run inline in each gateway process
// (VIDEO_WORKERS at a time) and in `npm run worker` processes; any number of them on one
// database take each job once (pg-boss hands a job to one worker; job-outcome.ts guards the end).
import { env } from "../env";
import { jobQueue, QUEUES } from "../jobs/boss";
import { blobStore } from "../storage/blob-store";
import { db } from "../db/client";
import type { RenderJobData } from "./create-video";
import { failTimedOutJobs } from "./job-outcome";
import { renderVideoJob } from "./render-video";

/**
 * Starts `concurrency` workers, each rendering one job at a time. A worker that finished a job
 * looks for the next at once (pg-boss would otherwise wait out its poll interval when the jobs
 * arrived while it was busy); an idle one is woken by NOTIFY, or polls.
 */
export async function startVideoWorkers(concurrency: number): Promise<void> {
  if (concurrency <= 0) return;
  const boss = await jobQueue();
  for (let i = 0; i < concurrency; i++) {
    let workerId: string | undefined;
    workerId = await boss.work<RenderJobData>(
      QUEUES.videoRender,
      { batchSize: 1, pollingIntervalSeconds: env.JOB_POLL_INTERVAL_SECONDS, notifyPollingIntervalSeconds: env.JOB_POLL_INTERVAL_SECONDS },
      async (jobs) => {
        try {
          for (const job of jobs) await renderVideoJob(job.data.jobId, { retryCount: job.retryCount, signal: job.signal });
        } finally {
          if (workerId) boss.notifyWorker(workerId);
        }
      },
    );
  }
}

/** Deletes the videos of jobs past their retention; the jobs themselves then answer 404. */
export async function deleteExpiredVideos(): Promise<number> {
  const expired = await db.videoJob.findMany({
    where: { expiresAt: { lt: new Date() }, contentKey: { not: null } },
    select: { id: true, contentKey: true },
    take: 500,
  });
  for (const job of expired) {
    await blobStore().delete(job.contentKey!);
    await db.videoJob.update({ where: { id: job.id }, data: { contentKey: null } });
  }
  return expired.length;
}

let sweeping: NodeJS.Timeout | undefined;

/** Fails jobs past VIDEO_JOB_TIMEOUT_SECONDS and deletes expired videos, every JOB_MONITOR_INTERVAL_SECONDS. */
export function startVideoSweeps(): void {
  if (sweeping) return;
  const sweep = async () => {
    await failTimedOutJobs();
    await deleteExpiredVideos();
  };
  sweeping = setInterval(() => sweep().catch((err) => console.error("video sweep failed:", err)), env.JOB_MONITOR_INTERVAL_SECONDS * 1000);
  sweeping.unref();
}

export function stopVideoSweeps(): void {
  clearInterval(sweeping);
  sweeping = undefined;
}
