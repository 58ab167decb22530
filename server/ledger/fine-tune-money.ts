// A fine-tuning job's money, through the one movement statement:
//   create:    ft_reserve:<job>  -held  (estimated tokens x epochs x training price; with the job's insert)
//   succeeded: ft_release:<job>  +held (kind ft_settle), and usage:<job> -trained tokens x price
//   cancelled: ft_release:<job>  +held (kind ft_settle), and usage:<job> for the tokens trained so far
//   failed:    ft_release:<job>  +held (kind ft_release), nothing charged
// each in the transaction that changes the job's status. Both ends of the hold share one id, so
// it is given back at most once, whatever path (worker, cancel route, sweep) ends the job; the
// guarded status change of job-outcome.ts decides which path wins.
import { db, type Tx } from "../infra/db/client";
import type { GatewayError } from "../kernel/errors";
import { money, type Money } from "../kernel/money";
import type { Budget } from "./budgets";
import { jobCounters, noteApplied, withJobReservation, type JobPayer } from "./job-reservation";
import { applyMovements, LEDGER_TX, usageMovement, type Movement } from "./movements";

/** The endpoint a training charge is recorded under. */
export const FINE_TUNING_ENDPOINT = "/v1/fine_tuning/jobs";

/** What training `tokens` costs at `pricePer1m` USD per million tokens: exact. */
export function trainingCost(tokens: number, pricePer1m: Money | string): Money {
  return money(pricePer1m).times(tokens).dividedBy(1_000_000);
}

/** Holds `amount` for a new job and runs `work` (its insert and queueing) in the same transaction. */
export function withFineTuneReservation<T>(
  job: JobPayer & { subject?: string | null; budgets?: readonly Budget[] },
  amount: Money | string,
  refusal: () => GatewayError,
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  const hold: Movement = { id: `ft_reserve:${job.id}`, kind: "ft_reserve", workspaceId: job.workspaceId, apiKeyId: job.apiKeyId, amount: money(amount).negated() };
  return withJobReservation(job, hold, refusal, work);
}

/** A job as the ledger needs it once it ended. */
export type EndedFineTune = JobPayer & {
  status: "succeeded" | "cancelled" | "failed";
  reservedAmount: string;
  pricePer1m: string;
  /** Tokens trained (all epochs so far); charged unless the job failed. */
  trainedTokens: number;
  model: string;
  nodeId: string | null;
  planId: string | null;
  subject: string | null;
  createdAt: Date;
};

/** What an ended job is charged: the tokens it trained, unless it failed. */
export function chargeOf(job: Pick<EndedFineTune, "status" | "trainedTokens" | "pricePer1m">): Money {
  return job.status === "failed" ? money(0) : trainingCost(job.trainedTokens, job.pricePer1m);
}

function movementsOf(job: EndedFineTune, at: Date): Movement[] {
  const cost = chargeOf(job);
  const giveBack: Movement = {
    id: `ft_release:${job.id}`,
    kind: job.status === "failed" ? "ft_release" : "ft_settle",
    workspaceId: job.workspaceId,
    apiKeyId: job.apiKeyId,
    amount: job.reservedAmount,
  };
  if (cost.isZero()) return [giveBack];
  const usage = {
    eventId: job.id,
    modelId: job.model,
    nodeId: job.nodeId,
    endpoint: FINE_TUNING_ENDPOINT,
    inputTokens: job.trainedTokens,
    latencyMs: at.getTime() - job.createdAt.getTime(),
    planId: job.planId,
    subject: job.subject,
  };
  return [giveBack, usageMovement(job, cost, usage, undefined, jobCounters(job, at))];
}

/**
 * Runs `end` (a guarded status change returning the job it ended, or null when another path had
 * ended it) and settles that job in the same transaction. Returns what `end` returned.
 */
export async function settleFineTuneJob<T extends EndedFineTune>(end: (tx: Tx) => Promise<T | null>): Promise<T | null> {
  const { job, applied } = await db.$transaction(async (tx) => {
    const job = await end(tx);
    return { job, applied: job ? await applyMovements(tx, movementsOf(job, new Date())) : null };
  }, LEDGER_TX);
  if (applied) noteApplied(applied);
  return job;
}
