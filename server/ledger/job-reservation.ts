// What every background job that holds money shares (video renders, fine-tuning): the hold made
// in the transaction that inserts the job, within the key's spend limit, the caps and what no
// credit lease holds; and, once the job is settled, the spend it raised noted for the caches.
import type { Tx } from "../infra/db/client";
import type { GatewayError } from "../kernel/errors";
import { money } from "../kernel/money";
import { noteKeySpent } from "../kernel/spend-notes";
import { counterName, dayPeriod, monthPeriod, type CounterScope } from "../kernel/spend-counters";
import { assertJobWithinBudgets, noteCounters, type Budget } from "./budgets";
import { leaseBook } from "./credit-leases";
import { assertKeyCanReserve } from "./key-reservation";
import { applyMovements, type Applied, type Movement } from "./movements";

export type JobPayer = { id: string; workspaceId: string; apiKeyId: string | null };

/**
 * Applies `hold` (a reservation, negative) and runs `work` (inserting the job and queueing it) in
 * the same transaction: a job exists only with its money held, or not at all. The amount must fit
 * the key's spend limit (with what its open jobs hold), the caps, and what no credit lease holds;
 * otherwise `refusal()` is thrown and nothing is written.
 */
export async function withJobReservation<T>(
  job: JobPayer & { subject?: string | null; budgets?: readonly Budget[] },
  hold: Movement,
  refusal: () => GatewayError,
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  const amount = money(hold.amount).negated().toString();
  return leaseBook().withFreeBalance(job.workspaceId, async (tx, free) => {
    if (job.apiKeyId) await assertKeyCanReserve(tx, job.apiKeyId, amount);
    if (job.budgets?.length) await assertJobWithinBudgets(tx, job.workspaceId, job.budgets, { subject: job.subject ?? null, apiKeyId: job.apiKeyId }, money(amount));
    if (free.lt(amount)) throw refusal();
    await applyMovements(tx, [hold]);
    return work(tx);
  });
}

/** The spend counters a settled job raises: its subject's (or its key's) day and month, when it settled. */
export function jobCounters(job: { subject: string | null; apiKeyId: string | null }, at: Date): string[] {
  const scope: CounterScope | null = job.subject !== null ? `subject:${job.subject}` : job.apiKeyId ? `key:${job.apiKeyId}` : null;
  return scope ? [counterName(scope, dayPeriod(at)), counterName(scope, monthPeriod(at))] : [];
}

/** Tells the in-memory caches what a settlement spent (keys' spend, budget counters). */
export function noteApplied(applied: Applied): void {
  for (const [hash, spent] of applied.keySpent) noteKeySpent(hash, spent);
  if (applied.counters.length) noteCounters(applied.counters);
}
