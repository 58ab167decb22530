// A video job's money, through the one movement statement:
//   create:    video_reserve:<job>  -reserved   (from what no lease holds, with the job's insert)
//   completed: video_release:<job>  +reserved (kind video_settle), and usage:<job> -cost with its
//              usage event, in the transaction that marks the job completed
//   failed:    video_release:<job>  +reserved (kind video_release), in the one that marks it failed
// Both ends of a reservation share one id, so a reservation is given back at most once, whatever
// path (worker, sweep) ends the job; the status guards of job-outcome.ts decide which path wins.
import { db, type Tx } from "../infra/db/client";
import type { GatewayError } from "../kernel/errors";
import { money, type Money } from "../kernel/money";
import { applyMovements, LEDGER_TX, usageMovement, type Movement, type UsageRecord } from "./movements";
import type { Budget } from "./budgets";
import { jobCounters, noteApplied, withJobReservation, type JobPayer } from "./job-reservation";
import { X402_WORKSPACE_ID } from "../kernel/x402-workspace";

/** A job paid with x402 reserved nothing here: its payment is settled (or released) on chain once the job ended (admission/x402). */
const fromBalance = (job: { workspaceId: string }) => job.workspaceId !== X402_WORKSPACE_ID;

/** What a finished job tells the ledger: the job, what it had reserved, and for a completed one what it cost. */
export type EndedJob = JobPayer & { reservedAmount: string };
export type SettledJob = EndedJob & {
  modelId: string; nodeId: string | null; cost: string; billedSeconds: string; createdAt: Date; planId: string | null; subject: string | null;
};

const reserve = (job: JobPayer, amount: Money | string): Movement => ({
  id: `video_reserve:${job.id}`, kind: "video_reserve", workspaceId: job.workspaceId, apiKeyId: job.apiKeyId, amount: money(amount).negated(),
});

const giveBack = (job: EndedJob, kind: "video_settle" | "video_release"): Movement => ({
  id: `video_release:${job.id}`, kind, workspaceId: job.workspaceId, apiKeyId: job.apiKeyId, amount: job.reservedAmount,
});

/**
 * Reserves a new job's highest cost and runs `work` (inserting the job and queueing its render) in
 * the same transaction: a job exists only with its money reserved, or not at all. The amount must
 * fit the key's spend limit (with what its running jobs hold), and what no credit lease holds;
 * otherwise `refusal()` is thrown and nothing is written.
 */
export async function withVideoReservation<T>(
  job: JobPayer & { subject?: string | null; budgets?: readonly Budget[] },
  amount: string,
  refusal: () => GatewayError,
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  return withJobReservation(job, reserve(job, amount), refusal, work);
}

/** The usage event of a completed job (its id is the job's), without who pays for it. */
export function videoUsage(job: Pick<SettledJob, "id" | "modelId" | "nodeId" | "billedSeconds" | "createdAt">): UsageRecord {
  return { eventId: job.id, modelId: job.modelId, nodeId: job.nodeId, endpoint: "/v1/videos", videoSeconds: job.billedSeconds, latencyMs: Date.now() - job.createdAt.getTime() };
}

/**
 * Runs `complete` (a guarded status change returning the jobs it completed) and settles those jobs
 * in the same transaction: the reservation back, the cost charged. Returns the jobs it completed.
 */
export async function settleVideoJobs(complete: (tx: Tx) => Promise<SettledJob[]>): Promise<SettledJob[]> {
  const { jobs, applied } = await db.$transaction(async (tx) => {
    const jobs = await complete(tx);
    const movements = jobs.filter(fromBalance).flatMap((job) => [
      giveBack(job, "video_settle"),
      usageMovement(job, job.cost, { ...videoUsage(job), planId: job.planId, subject: job.subject }, undefined, jobCounters(job, new Date())),
    ]);
    return { jobs, applied: await applyMovements(tx, movements) };
  }, LEDGER_TX);
  noteApplied(applied);
  return jobs;
}

/** Runs `fail` (a guarded status change returning the jobs it failed) and releases their reservations in the same transaction; returns those jobs. */
export async function releaseVideoJobs(fail: (tx: Tx) => Promise<EndedJob[]>): Promise<EndedJob[]> {
  return db.$transaction(async (tx) => {
    const jobs = await fail(tx);
    await applyMovements(tx, jobs.filter(fromBalance).map((job) => giveBack(job, "video_release")));
    return jobs;
  }, LEDGER_TX);
}
