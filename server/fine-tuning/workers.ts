// Fine-tuning workers: each drives one job at a time on its node (run-job.ts). They run in the
// first process of each gateway instance (FINE_TUNE_WORKERS at a time) and in `npm run worker`
// processes; any number of them on one database take each job once (pg-boss hands a job to one
// worker and beats its heartbeat while it runs; a worker that dies has its job handed to another,
// which resumes the same node job). A sweep fails jobs that never reached a node and whose queue
// entry is gone (retries used up while the process died each time).
import { db } from "../infra/db/client";
import { jobQueue, QUEUES, workOneAtATime } from "../infra/jobs/boss";
import { logFor } from "../infra/telemetry/log";
import type { FineTuneJobData } from "./create-job";
import { finishJob } from "./job-outcome";
import { runFineTuneJob } from "./run-job";

const log = logFor("fine-tuning");

/** Starts `concurrency` workers in this process, each driving one job at a time. */
export async function startFineTuneWorkers(concurrency: number): Promise<void> {
  if (concurrency <= 0) return;
  await workOneAtATime<FineTuneJobData>(await jobQueue(), QUEUES.fineTune, concurrency, (job) =>
    runFineTuneJob(job.data.jobId, { retryCount: job.retryCount, signal: job.signal }),
  );
}

/** How long a job may wait without its queue entry before the sweep fails it (seconds). */
const ORPHAN_GRACE_SECONDS = 600;

/**
 * Fails jobs that have not ended but whose pg-boss entry has (failed, expired, deleted): no worker
 * will ever take them again. Their hold is given back, with the tokens a node job trained charged.
 */
export async function failOrphanedJobs(): Promise<number> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT j."id" FROM "FineTuningJob" j
    WHERE j."status" NOT IN ('succeeded', 'failed', 'cancelled')
      AND j."updatedAt" < ${new Date(Date.now() - ORPHAN_GRACE_SECONDS * 1000)}
      AND NOT EXISTS (
        SELECT 1 FROM pgboss.job q
        WHERE q.name = ${QUEUES.fineTune} AND q.data->>'jobId' = j."id" AND q.state IN ('created', 'retry', 'active')
      )
    LIMIT 100`;
  let failed = 0;
  for (const { id } of rows) {
    const ended = await finishJob(id, { status: "failed", error: { code: "fine_tuning_failed", message: "The job could not be run: its workers stopped repeatedly.", param: null } });
    if (ended) failed++;
  }
  return failed;
}

let sweeping: NodeJS.Timeout | undefined;

/** Every minute: the orphaned-job sweep. */
export function startFineTuneSweeps(): void {
  if (sweeping) return;
  let running = false;
  sweeping = setInterval(() => {
    if (running) return;
    running = true;
    jobQueue()
      .then(() => failOrphanedJobs())
      .catch((err) => log.error({ err }, "fine-tuning sweep failed"))
      .finally(() => (running = false));
  }, 60_000);
  sweeping.unref();
}

export function stopFineTuneSweeps(): void {
  clearInterval(sweeping);
  sweeping = undefined;
}
