// Spend caps (per key and per subject per day and month, per session over its life), checked
// before the node is called. What a counter has spent comes from memory: loaded from its
// SpendCounter row, raised by every charge this instance commits (the ledger's statement returns
// the new figure), and reloaded once KEY_CACHE_MAX_AGE_MS old. A call reserves its highest cost on
// every counter it is checked against until its charge commits or it fails, so calls in flight on
// this instance count too. Bound (docs/LIMITS.md): a cap is passed by at most what other
// instances admitted concurrently, or charged within the cache's age, before this one saw it.
import { Prisma } from "../generated/prisma/client";
import { db, type Tx } from "../infra/db/client";
import { FreshCache } from "../infra/cache/fresh-cache";
import { env } from "../infra/env";
import { errors } from "../kernel/errors";
import { formatMoney, money, Money } from "../kernel/money";
import { secondsToPeriodEnd } from "../kernel/spend-counters";
import { noteBudgetRefused } from "../kernel/alert-notes";

/** A spend cap a call is checked against: a counter (kernel/spend-counters.ts) and its cap in USD. */
export type Budget = { counter: string; cap: string; label: "daily" | "monthly" | "session"; period: string };

const keyOf = (workspaceId: string, counter: string) => `${workspaceId}\n${counter}`;

const spentCache = new FreshCache<string>({
  name: "spend counters",
  load: async (key) => {
    const [workspaceId, counter] = key.split("\n") as [string, string];
    const row = await db.spendCounter.findUnique({ where: { workspaceId_counter: { workspaceId, counter } }, select: { spent: true } });
    return row?.spent.toString() ?? "0";
  },
  maxAgeMs: env.KEY_CACHE_MAX_AGE_MS,
  refreshMs: env.KEY_CACHE_REFRESH_MS,
});

/** Reservations of calls in flight on this instance, per counter. */
const held = new Map<string, Money>();

function hold(key: string, amount: Money): void {
  held.set(key, (held.get(key) ?? money(0)).plus(amount));
}

function unhold(key: string, amount: Money): void {
  const left = (held.get(key) ?? money(0)).minus(amount);
  if (left.lte(0)) held.delete(key);
  else held.set(key, left);
}

function exceeded(workspaceId: string, b: Budget, used: Money, amount: Money) {
  noteBudgetRefused({ workspaceId, counter: b.counter, cap: b.cap, label: b.label, spent: formatMoney(used) });
  const resets = secondsToPeriodEnd(b.period, new Date());
  const left = Money.max(money(b.cap).minus(used), 0);
  return errors.budgetExceeded(
    `This request can cost up to ${formatMoney(amount.toSignificantDigits(6, Money.ROUND_UP))} USD, more than is left of the ${WHAT[b.label]} ` +
      `(${formatMoney(left)} of ${formatMoney(b.cap)} USD)${resets === null ? "" : `; it starts afresh in ${resets} s`}. Ask for less (a lower max_tokens, fewer seconds), or raise the cap.`,
  );
}

const WHAT = { daily: "daily spend cap", monthly: "monthly spend cap", session: "spend cap of this session" } as const;

/**
 * Reserves `amount` on every budget, or throws 402 budget_exceeded naming the first cap it would
 * pass. Returns the function that ends the reservations (idempotent).
 */
export async function reserveBudgets(workspaceId: string, budgets: readonly Budget[], amount: Money): Promise<() => void> {
  if (!budgets.length) return () => undefined;
  const spent = await Promise.all(budgets.map((b) => spentCache.get(keyOf(workspaceId, b.counter))));
  budgets.forEach((b, i) => {
    const used = money(spent[i]!).plus(held.get(keyOf(workspaceId, b.counter)) ?? 0);
    if (used.plus(amount).gt(b.cap)) throw exceeded(workspaceId, b, used, amount);
  });
  const keys = budgets.map((b) => keyOf(workspaceId, b.counter));
  for (const k of keys) hold(k, amount);
  let open = true;
  return () => {
    if (!open) return;
    open = false;
    for (const k of keys) unhold(k, amount);
  };
}

/**
 * For a video or fine-tuning job, in the transaction that creates it: what the caps' counters have
 * spent, plus what the same subject's (or, without a subject, the same key's) open jobs hold, plus
 * this job's reservation, must stay within every cap; else 402 budget_exceeded. Creates of one
 * subject (or key) are checked one after the other (an advisory lock).
 */
export async function assertJobWithinBudgets(
  tx: Tx,
  workspaceId: string,
  budgets: readonly Budget[],
  owner: { subject: string | null; apiKeyId: string | null },
  amount: Money,
): Promise<void> {
  if (!budgets.length) return;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`budgets ${workspaceId} ${owner.subject ?? `key ${owner.apiKeyId}`}`}))`;
  const whose = owner.subject !== null ? Prisma.sql`"subject" = ${owner.subject}` : Prisma.sql`"subject" IS NULL AND "apiKeyId" = ${owner.apiKeyId}`;
  const [open] = await tx.$queryRaw<{ held: string }[]>`
    SELECT (COALESCE((SELECT SUM("reservedAmount") FROM "VideoJob"
      WHERE "workspaceId" = ${workspaceId} AND "status" IN ('queued', 'in_progress') AND ${whose}), 0)
      + COALESCE((SELECT SUM("reservedAmount") FROM "FineTuningJob"
      WHERE "workspaceId" = ${workspaceId} AND "status" IN ('validating_files', 'queued', 'running', 'paused') AND ${whose}), 0))::text AS held`;
  const rows = await tx.spendCounter.findMany({ where: { workspaceId, counter: { in: budgets.map((b) => b.counter) } }, select: { counter: true, spent: true } });
  for (const b of budgets) {
    const spent = rows.find((r) => r.counter === b.counter)?.spent.toString() ?? "0";
    const used = money(spent).plus(open!.held);
    if (used.plus(amount).gt(b.cap)) throw exceeded(workspaceId, b, used, amount);
  }
}

/** Called by the usage writer with the counters its statement raised (the newer figure wins). */
export function noteCounters(rows: { workspaceId: string; counter: string; spent: string }[]): void {
  for (const r of rows) spentCache.update(keyOf(r.workspaceId, r.counter), (old) => (money(old).gt(r.spent) ? old : r.spent));
}
