// A video job paid with x402 (`exact`, for the seconds it asks for): its payment is verified and
// claimed when the job is created and linked to it; it is settled on chain when the job completes
// (by whichever process completes it) and released when the job fails, like the reservation a
// workspace's job holds. The usage event has the job's id, as for workspaces.
import type { PaymentRequirements } from "@x402/core/types";
import { db } from "../../infra/db/client";
import { videoUsage } from "../../ledger/video-money";
import type { X402Payment } from "../../identity/principal";
import { x402Enabled } from "./config";
import { paymentServer } from "./resource-server";
import { recordSettlement, settleOnChain } from "./settlement";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("x402");

type CompletedJob = { id: string; modelId: string; nodeId: string | null; billedSeconds: string; createdAt: Date };

/** Links a verified payment to the job it pays for (in the job's creating transaction). */
export async function linkVideoPayment(tx: { x402Payment: typeof db.x402Payment }, claimId: string, jobId: string): Promise<void> {
  await tx.x402Payment.update({ where: { id: claimId }, data: { videoJobId: jobId } });
}

/**
 * Settles the payment of a completed job and records its usage; a refusal is kept on the payment
 * (the job stays completed). One process settles it: the one that moves it from verified to
 * settling. A process without x402 settings (a worker of another deployment) leaves it to the
 * sweep of one that has them.
 */
export async function settleVideoPayment(job: CompletedJob): Promise<void> {
  if (!x402Enabled()) return;
  const row = await db.x402Payment.findUnique({ where: { videoJobId: job.id } });
  if (!row) return;
  const taken = await db.x402Payment.updateMany({ where: { id: row.id, status: "verified" }, data: { status: "settling" } });
  if (taken.count === 0) return;
  const fail = (reason: string) => db.x402Payment.update({ where: { id: row.id }, data: { status: "failed", errorReason: reason.slice(0, 500), settledAt: new Date() } });
  try {
    const ps = await paymentServer();
    const p = { id: row.id, payer: row.payer, scheme: row.scheme, payment: row.payload as unknown as X402Payment, requirements: row.requirements as unknown as PaymentRequirements };
    const settled = await settleOnChain(ps, p, BigInt(p.requirements.amount));
    if (!settled.response.success) return void (await fail(settled.response.errorReason ?? "settle_failed"));
    await recordSettlement(ps, p, settled, videoUsage(job));
  } catch (err) {
    log.error({ err }, `x402: settling the payment of video job ${job.id} failed`);
    await fail(`settle_error: ${(err as Error).message}`).catch(() => undefined);
  }
}

/** The sweep: settles the payments of completed jobs still waiting (completed where x402 is not configured). */
export async function settlePendingVideoPayments(): Promise<number> {
  if (!x402Enabled()) return 0;
  const jobs = await db.$queryRaw<CompletedJob[]>`
    SELECT j."id", j."modelId", j."nodeId", j."billedSeconds"::text AS "billedSeconds", j."createdAt"
    FROM "X402Payment" p JOIN "VideoJob" j ON j."id" = p."videoJobId"
    WHERE p."status" = 'verified' AND j."status" = 'completed' LIMIT 50`;
  for (const job of jobs) await settleVideoPayment(job);
  return jobs.length;
}

/** The jobs failed: their payments are released, nothing is settled. */
export async function releaseVideoPayments(jobIds: string[]): Promise<void> {
  await db.x402Payment.updateMany({ where: { videoJobId: { in: jobIds }, status: "verified" }, data: { status: "released", settledAt: new Date() } });
}
