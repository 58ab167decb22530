// Batch workers: pg-boss hands each batch's run job to one worker (inline in a gateway's first
// process, BATCH_WORKERS at a time, and in `npm run worker` processes). A worker that dies stops
// sending heartbeats; pg-boss fails its attempt and retries the job, and the next attempt resumes
// the batch where the lines written stop (run-batch.ts).
import { jobQueue, QUEUES } from "../infra/jobs/boss";
import { env } from "../infra/env";
import type { BatchJobData } from "./create-batch";
import { runBatch, type RunLine } from "./run-batch";

export async function startBatchWorkers(concurrency: number, runLine: RunLine): Promise<void> {
  if (concurrency <= 0) return;
  const boss = await jobQueue();
  for (let i = 0; i < concurrency; i++) {
    let workerId: string | undefined;
    workerId = await boss.work<BatchJobData>(
      QUEUES.batchRun,
      { batchSize: 1, pollingIntervalSeconds: env.JOB_POLL_INTERVAL_SECONDS, notifyPollingIntervalSeconds: env.JOB_POLL_INTERVAL_SECONDS },
      async (jobs) => {
        try {
          for (const job of jobs) await runBatch(job.data.batchId, runLine, job.signal);
        } finally {
          if (workerId) boss.notifyWorker(workerId);
        }
      },
    );
  }
}
