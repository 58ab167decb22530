// Batch workers: pg-boss hands each batch's run job to one worker (in a gateway instance's batch
// process, BATCH_WORKERS at a time, and in `npm run worker` processes). A worker that dies stops
// sending heartbeats; pg-boss fails its attempt and retries the job, and the next attempt resumes
// the batch where the lines written stop (run-batch.ts).
import { jobQueue, QUEUES, workOneAtATime } from "../infra/jobs/boss";
import type { BatchJobData } from "./create-batch";
import { runBatch, type LineRunner } from "./run-batch";

/** Aborted when the process stops: running batches start no further line, and their jobs are resumed elsewhere. */
let stopping = new AbortController();

/** Stops the batches this process runs from starting lines (the lines in flight finish). */
export function stopBatchRuns(): void {
  stopping.abort();
}

/** Batches this process runs now, and when it last started or ended one (performance.now()). */
const activity = { running: 0, lastAt: performance.now() };

/** How long this process has run no batch (ms); 0 while it runs one. */
export function idleForMs(): number {
  return activity.running > 0 ? 0 : performance.now() - activity.lastAt;
}

export async function startBatchWorkers(concurrency: number, runLine: LineRunner): Promise<void> {
  if (stopping.signal.aborted) stopping = new AbortController();
  if (concurrency <= 0) return;
  await workOneAtATime<BatchJobData>(await jobQueue(), QUEUES.batchRun, concurrency, async (job) => {
    activity.running++;
    try {
      await runBatch(job.data.batchId, runLine, AbortSignal.any([job.signal, stopping.signal]));
    } finally {
      activity.running--;
      activity.lastAt = performance.now();
    }
  });
}
