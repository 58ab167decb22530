// The job queue: pg-boss on the gateway's own PostgreSQL. Workers are woken by LISTEN/NOTIFY the
// moment a job is committed; polling (JOB_POLL_INTERVAL_SECONDS) is only the safety net. Every
// process that sends or works jobs shares one started instance.
import type { Job, Db as QueueDb, PgBoss } from "pg-boss";
import { databaseUrl } from "../db/client";
import type { Tx } from "../db/client";
import { env } from "../env";
import { logFor } from "../telemetry/log";

const log = logFor("jobs");

export const QUEUES = { videoRender: "video-render", batchRun: "batch-run", fineTune: "fine-tune" } as const;

const state = globalThis as unknown as { gatewayBoss?: Promise<PgBoss> };

// Loaded with the queue's first use: a process that never sends or works a job does not load it.
let pgBoss: typeof import("pg-boss") | undefined;

async function startBoss(): Promise<PgBoss> {
  pgBoss ??= await import("pg-boss");
  const boss = new pgBoss.PgBoss({
    connectionString: databaseUrl(),
    application_name: "gateway-jobs",
    max: 4,
    useListenNotify: true,
    // The monitor fails jobs whose worker stopped sending heartbeats (a crash), so they are retried.
    monitorIntervalSeconds: env.JOB_MONITOR_INTERVAL_SECONDS,
    superviseIntervalSeconds: env.JOB_MONITOR_INTERVAL_SECONDS,
  });
  boss.on("error", (err) => log.error({ err }, "job queue"));
  await boss.start();
  await boss.createQueue(QUEUES.videoRender, { notify: true });
  await boss.createQueue(QUEUES.batchRun, { notify: true });
  await boss.createQueue(QUEUES.fineTune, { notify: true });
  return boss;
}

/** The started queue of this process. */
export async function jobQueue(): Promise<PgBoss> {
  pgBoss ??= await import("pg-boss"); // this copy of the module may find the queue started by another
  state.gatewayBoss ??= startBoss().catch((err) => {
    state.gatewayBoss = undefined;
    throw err;
  });
  return state.gatewayBoss;
}

/** Stops workers (letting running jobs finish for up to `timeoutMs`) and closes the pool. */
export async function stopJobQueue(timeoutMs = 10_000): Promise<void> {
  const boss = await state.gatewayBoss?.catch(() => undefined);
  state.gatewayBoss = undefined;
  await boss?.stop({ graceful: true, timeout: timeoutMs });
}

/** Lets pg-boss write inside a Prisma transaction, so a job is enqueued only if the transaction commits. */
export function inTransaction(tx: Tx): QueueDb {
  if (!pgBoss) throw new Error("inTransaction: await jobQueue() first");
  return pgBoss.fromPrisma(tx);
}

/**
 * Starts `concurrency` workers of `queue` in this process, each handling one job at a time. A
 * worker that finished a job looks for the next at once (pg-boss would otherwise wait out its
 * poll interval when the jobs arrived while it was busy); an idle one is woken by NOTIFY, or polls.
 */
export async function workOneAtATime<T extends object>(boss: PgBoss, queue: string, concurrency: number, handle: (job: Job<T>) => Promise<void>): Promise<void> {
  for (let i = 0; i < concurrency; i++) {
    let workerId: string | undefined;
    workerId = await boss.work<T>(
      queue,
      { batchSize: 1, pollingIntervalSeconds: env.JOB_POLL_INTERVAL_SECONDS, notifyPollingIntervalSeconds: env.JOB_POLL_INTERVAL_SECONDS },
      async (jobs) => {
        try {
          for (const job of jobs) await handle(job);
        } finally {
          if (workerId) boss.notifyWorker(workerId);
        }
      },
    );
  }
}
