// The final moves of a video job, each ONE statement so that the job's status and the money move
// together or not at all. Each is guarded by the job's current status: whichever worker (or
// sweep) finishes a job first wins; a second finish changes nothing and charges nothing.
//   completed: the usage event (id = job id) is written, and the balance gets back the
//              reservation minus the cost.
//   failed:    the balance gets the whole reservation back; no usage event.
import { noteBalance } from "../../ledger/balance-cache";
import { db } from "../../infra/db/client";
import { env } from "../../infra/env";
import type { Money } from "../../kernel/money";
import { formatMoney } from "../../kernel/money";

type BalanceRow = { id: string; balance: string };

function noteAll(rows: BalanceRow[]): void {
  for (const r of rows) noteBalance(r.id, r.balance);
}

export type Completion = { billedSeconds: string; cost: Money; contentKey: string; contentBytes: number };

/**
 * Marks an in_progress job completed and settles its bill. Only the worker holding the job's
 * latest claim (`attempt`) may, and only before the job's timeout; false otherwise.
 */
export async function completeJob(jobId: string, attempt: number, c: Completion): Promise<boolean> {
  const rows = await db.$queryRaw<BalanceRow[]>`
    WITH done AS (
      UPDATE "VideoJob" SET "status" = 'completed', "progress" = 100, "billedSeconds" = ${c.billedSeconds}::numeric,
        "cost" = ${formatMoney(c.cost)}::numeric, "contentKey" = ${c.contentKey}, "contentBytes" = ${c.contentBytes}::bigint,
        "completedAt" = now(), "expiresAt" = now() + make_interval(secs => ${env.VIDEO_RETENTION_SECONDS}::int)
      WHERE "id" = ${jobId} AND "status" = 'in_progress' AND "attempts" = ${attempt}::int
        AND "createdAt" >= now() - make_interval(secs => ${env.VIDEO_JOB_TIMEOUT_SECONDS}::int)
      RETURNING "id", "workspaceId", "apiKeyId", "modelId", "nodeId", "reservedAmount", "cost", "billedSeconds", "createdAt"
    ), charged AS (
      INSERT INTO "UsageEvent" ("id", "workspaceId", "apiKeyId", "modelId", "nodeId", "endpoint", "videoSeconds", "cost", "latencyMs")
      SELECT "id", "workspaceId", "apiKeyId", "modelId", "nodeId", '/v1/videos', "billedSeconds", "cost",
        LEAST(2147483647, (EXTRACT(EPOCH FROM now() - "createdAt") * 1000)::bigint)::int
      FROM done
      ON CONFLICT ("id") DO NOTHING
      RETURNING "apiKeyId", "cost"
    ), key_spend AS (
      -- the key's running total moves with its usage events, in the same statement
      UPDATE "ApiKey" k SET "spent" = k."spent" + charged."cost"
      FROM charged WHERE k."id" = charged."apiKeyId"
    )
    UPDATE "Workspace" w SET "balance" = w."balance" + done."reservedAmount" - done."cost", "updatedAt" = now()
    FROM done WHERE w."id" = done."workspaceId"
    RETURNING w."id", w."balance"::text AS balance`;
  noteAll(rows);
  return rows.length > 0;
}

/**
 * Marks a queued or in_progress job failed and releases its reservation; false when it was
 * already final (or, with `attempt`, when another worker has claimed it since).
 */
export async function failJob(jobId: string, code: string, message: string, attempt?: number): Promise<boolean> {
  const rows = await db.$queryRaw<BalanceRow[]>`
    WITH failed AS (
      UPDATE "VideoJob" SET "status" = 'failed', "errorCode" = ${code}, "errorMessage" = ${message.slice(0, 2000)},
        "completedAt" = now(), "expiresAt" = now() + make_interval(secs => ${env.VIDEO_RETENTION_SECONDS}::int)
      WHERE "id" = ${jobId} AND "status" IN ('queued', 'in_progress') AND (${attempt ?? null}::int IS NULL OR "attempts" = ${attempt ?? null}::int)
      RETURNING "workspaceId", "reservedAmount"
    )
    UPDATE "Workspace" w SET "balance" = w."balance" + failed."reservedAmount", "updatedAt" = now()
    FROM failed WHERE w."id" = failed."workspaceId"
    RETURNING w."id", w."balance"::text AS balance`;
  noteAll(rows);
  return rows.length > 0;
}

/** Fails (uncharged) every job not finished VIDEO_JOB_TIMEOUT_SECONDS after it was created; returns how many. */
export async function failTimedOutJobs(): Promise<number> {
  const rows = await db.$queryRaw<(BalanceRow & { jobs: number })[]>`
    WITH failed AS (
      UPDATE "VideoJob" SET "status" = 'failed', "errorCode" = 'timeout',
        "errorMessage" = ${`The video was not rendered within ${env.VIDEO_JOB_TIMEOUT_SECONDS} seconds. Nothing was charged.`},
        "completedAt" = now(), "expiresAt" = now() + make_interval(secs => ${env.VIDEO_RETENTION_SECONDS}::int)
      WHERE "status" IN ('queued', 'in_progress') AND "createdAt" < now() - make_interval(secs => ${env.VIDEO_JOB_TIMEOUT_SECONDS}::int)
      RETURNING "workspaceId", "reservedAmount"
    ), totals AS (
      SELECT "workspaceId", SUM("reservedAmount") AS total, COUNT(*)::int AS jobs FROM failed GROUP BY "workspaceId"
    )
    UPDATE "Workspace" w SET "balance" = w."balance" + totals.total, "updatedAt" = now()
    FROM totals WHERE w."id" = totals."workspaceId"
    RETURNING w."id", w."balance"::text AS balance, totals.jobs`;
  noteAll(rows);
  return rows.reduce((n, r) => n + r.jobs, 0);
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
