// The final moves of a video job. Each is guarded by the job's current status, and moves the money
// (through the ledger, video-money.ts) in the transaction that changes the status: whichever
// worker (or sweep) finishes a job first wins; a second finish changes nothing and charges nothing.
//   completed: the usage event (id = job id) is written, and the balance gets back the
//              reservation minus the cost.
//   failed:    the balance gets the whole reservation back; no usage event.
import { releaseVideoJobs, settleVideoJobs, type EndedJob, type SettledJob } from "../../ledger/video-money";
import { env } from "../../infra/env";
import { X402_WORKSPACE_ID } from "../../kernel/x402-workspace";
import type { Money } from "../../kernel/money";
import { formatMoney } from "../../kernel/money";
import { db } from "../../infra/db/client";
import { releaseVideoPayments, settleVideoPayment } from "../../admission/x402/video-payment";
import { logFor } from "../../infra/telemetry/log";
import { alertVideosFailed } from "../../alerts/gateway-alerts";

const log = logFor("videos");

/** Jobs paid with x402 are settled on chain (or released) once their end is committed. */
const X402_JOB = (job: { workspaceId: string }) => job.workspaceId === X402_WORKSPACE_ID;

async function releasePaid(jobs: EndedJob[]): Promise<number> {
  alertVideosFailed(jobs);
  const paid = jobs.filter(X402_JOB).map((j) => j.id);
  if (paid.length) await releaseVideoPayments(paid);
  return jobs.length;
}

export type Completion = { billedSeconds: string; cost: Money; contentKey: string; contentBytes: number };

/**
 * Marks an in_progress job completed and settles its bill. Only the worker holding the job's
 * latest claim (`attempt`) may, and only before the job's timeout; false otherwise.
 */
export async function completeJob(jobId: string, attempt: number, c: Completion): Promise<boolean> {
  const settled = await settleVideoJobs(
    (tx) => tx.$queryRaw<SettledJob[]>`
      UPDATE "VideoJob" SET "status" = 'completed', "progress" = 100, "billedSeconds" = ${c.billedSeconds}::numeric,
        "cost" = ${formatMoney(c.cost)}::numeric, "contentKey" = ${c.contentKey}, "contentBytes" = ${c.contentBytes}::bigint,
        "completedAt" = now(), "expiresAt" = now() + make_interval(secs => ${env.VIDEO_RETENTION_SECONDS}::int)
      WHERE "id" = ${jobId} AND "status" = 'in_progress' AND "attempts" = ${attempt}::int
        AND "createdAt" >= now() - make_interval(secs => ${env.VIDEO_JOB_TIMEOUT_SECONDS}::int)
      RETURNING "id", "workspaceId", "apiKeyId", "modelId", "nodeId", "reservedAmount"::text AS "reservedAmount",
        "cost"::text AS cost, "billedSeconds"::text AS "billedSeconds", "createdAt", "planId", "subject"`,
  );
  // The job is completed whatever happens to its payment now (a failure is left to the sweep).
  for (const job of settled.filter(X402_JOB)) await settleVideoPayment(job).catch((err) => log.error({ err }, `x402: settling video job ${job.id}`));
  return settled.length > 0;
}

const ENDED = `"id", "workspaceId", "apiKeyId", "reservedAmount"::text AS "reservedAmount"`;

/**
 * Marks a queued or in_progress job failed and releases its reservation; false when it was
 * already final (or, with `attempt`, when another worker has claimed it since).
 */
export async function failJob(jobId: string, code: string, message: string, attempt?: number): Promise<boolean> {
  const released = await releaseVideoJobs(
    (tx) => tx.$queryRawUnsafe<EndedJob[]>(
      `UPDATE "VideoJob" SET "status" = 'failed', "errorCode" = $2, "errorMessage" = $3,
        "completedAt" = now(), "expiresAt" = now() + make_interval(secs => $4::int)
      WHERE "id" = $1 AND "status" IN ('queued', 'in_progress') AND ($5::int IS NULL OR "attempts" = $5::int)
      RETURNING ${ENDED}`,
      jobId, code, message.slice(0, 2000), env.VIDEO_RETENTION_SECONDS, attempt ?? null,
    ),
  );
  return (await releasePaid(released)) > 0;
}

/** Fails (uncharged) every job not finished VIDEO_JOB_TIMEOUT_SECONDS after it was created; returns how many. */
export async function failTimedOutJobs(): Promise<number> {
  return releasePaid(await releaseVideoJobs(
    (tx) => tx.$queryRawUnsafe<EndedJob[]>(
      `UPDATE "VideoJob" SET "status" = 'failed', "errorCode" = 'timeout', "errorMessage" = $1,
        "completedAt" = now(), "expiresAt" = now() + make_interval(secs => $2::int)
      WHERE "status" IN ('queued', 'in_progress') AND "createdAt" < now() - make_interval(secs => $3::int)
      RETURNING ${ENDED}`,
      `The video was not rendered within ${env.VIDEO_JOB_TIMEOUT_SECONDS} seconds. Nothing was charged.`, env.VIDEO_RETENTION_SECONDS, env.VIDEO_JOB_TIMEOUT_SECONDS,
    ),
  ));
}

/**
 * Fails (uncharged) the jobs whose queue entry has run out of attempts without finishing them:
 * a last attempt whose worker died leaves nobody to fail the job otherwise.
 */
export async function failAbandonedJobs(): Promise<number> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT v."id" FROM "VideoJob" v
    WHERE v."status" IN ('queued', 'in_progress')
      AND EXISTS (SELECT 1 FROM pgboss.job j WHERE j.name = 'video-render' AND j.data->>'jobId' = v."id" AND j.state = 'failed')
      AND NOT EXISTS (SELECT 1 FROM pgboss.job j WHERE j.name = 'video-render' AND j.data->>'jobId' = v."id" AND j.state IN ('created', 'retry', 'active'))`;
  let failed = 0;
  for (const { id } of rows) {
    if (await failJob(id, "render_failed", "The render was interrupted on every attempt (its workers stopped). Nothing was charged.")) failed++;
  }
  return failed;
}
