// Alerts from what the ledger commits and refuses (it tells them through kernel/alert-notes.ts):
//   balance.low      a batch took the balance from at or above a webhook's `balance_below` to
//                    below it. Once per crossing: the event id names the threshold and the last
//                    movement of the batch that crossed it (a movement is applied once, by one
//                    statement of one instance, so only one instance ever sees that crossing).
//   spend.threshold  a key's `spent`, or a budget counter of a key or a subject, went from below
//                    `spend_share` × its cap to at or above it. Once per cap: the event id names
//                    the key (or the counter, whose name holds its period) and the threshold.
//   budget.exceeded  a call was refused for a spend cap. Once per cap and period: the event id is
//                    the counter's name (a client retrying the refused call sends no second alert).
// The work runs behind the commit and the refusal; a workspace without webhooks costs no query
// (subscribers.ts caches that).
import { db } from "../infra/db/client";
import { logFor } from "../infra/telemetry/log";
import { onBudgetRefused, onUsageApplied, type AppliedNote, type BudgetRefusalNote, type CommittedMovement } from "../kernel/alert-notes";
import { formatMoney, money, type Money } from "../kernel/money";
import { emitAlert } from "./emit";
import { webhooksOf, type Subscriber } from "./subscribers";

const log = logFor("alerts");

/** Where the threshold `t` lies between the figures before and after a batch: crossed going down (balance) or up (spend). */
const crossedDown = (before: Money, after: Money, t: Money) => before.gte(t) && after.lt(t);
const crossedUp = (before: Money, after: Money, t: Money) => before.lt(t) && after.gte(t);

/** What the batch's applied movements charged, summed (a charge as a positive figure). */
const charged = (movements: CommittedMovement[]) => movements.reduce((sum, m) => sum.minus(money(m.amount.toString())), money(0));

function balanceLow(workspaceId: string, hooks: Subscriber[], movements: CommittedMovement[], after: string): void {
  const now = money(after);
  const before = now.plus(charged(movements));
  const crossing = movements.at(-1)!.id;
  const byThreshold = new Map<string, string[]>();
  for (const w of hooks) {
    if (!w.events.includes("balance.low") || w.balanceBelow === null) continue;
    const t = formatMoney(w.balanceBelow);
    if (crossedDown(before, now, money(t))) byThreshold.set(t, [...(byThreshold.get(t) ?? []), w.id]);
  }
  for (const [threshold, webhookIds] of byThreshold) {
    emitAlert(workspaceId, "balance.low", `balance.low:${workspaceId}:${threshold}:${crossing}`, { balance: formatMoney(now), previous_balance: formatMoney(before), threshold }, { webhookIds });
  }
}

/** Emits spend.threshold to the webhooks whose share of `cap` the spend crossed. */
function spendCrossed(workspaceId: string, hooks: Subscriber[], subject: string, cap: Money, before: Money, after: Money, data: Record<string, unknown>): void {
  for (const w of hooks) {
    const share = money(w.spendShare!);
    if (!crossedUp(before, after, cap.times(share))) continue;
    const eventId = `spend.threshold:${workspaceId}:${subject}:${formatMoney(cap)}:${formatMoney(share)}`;
    emitAlert(workspaceId, "spend.threshold", eventId, { ...data, spent: formatMoney(after), cap: formatMoney(cap), share: Number(formatMoney(share)) }, { webhookIds: [w.id] });
  }
}

async function keySpend(workspaceId: string, hooks: Subscriber[], movements: CommittedMovement[], keySpent: ReadonlyMap<string, string>): Promise<void> {
  const ids = [...new Set(movements.map((m) => m.apiKeyId).filter((id): id is string => id !== null))];
  if (!ids.length) return;
  const keys = await db.apiKey.findMany({ where: { id: { in: ids }, workspaceId, spendLimit: { not: null } }, select: { id: true, name: true, hash: true, spendLimit: true } });
  for (const k of keys) {
    const spent = keySpent.get(k.hash);
    if (spent === undefined) continue;
    const after = money(spent);
    const before = after.minus(charged(movements.filter((m) => m.apiKeyId === k.id)));
    spendCrossed(workspaceId, hooks, `key:${k.id}`, money(k.spendLimit!.toString()), before, after, { scope: "key", key_id: k.id, key_name: k.name, period: "total" });
  }
}

async function counterSpend(workspaceId: string, hooks: Subscriber[], movements: CommittedMovement[], counters: AppliedNote["counters"]): Promise<void> {
  for (const c of counters) {
    if (c.workspaceId !== workspaceId) continue;
    const [scope, period] = c.counter.split("|") as [string, string];
    // Session caps are the session's own; the alerts cover the caps of keys and subjects (plans).
    if (scope.startsWith("session:") || !period) continue;
    const raising = movements.filter((m) => m.counters?.includes(c.counter));
    const planId = raising.find((m) => m.usage?.planId)?.usage?.planId;
    if (!planId) continue;
    const plan = await db.plan.findUnique({ where: { id: planId }, select: { dailyCap: true, monthlyCap: true } });
    const cap = period.startsWith("day:") ? plan?.dailyCap : period.startsWith("month:") ? plan?.monthlyCap : null;
    if (!cap) continue;
    const after = money(c.spent);
    const who = scope.startsWith("key:") ? { scope: "key", key_id: scope.slice(4) } : { scope: "subject", subject: scope.slice(8) };
    spendCrossed(workspaceId, hooks, c.counter, money(cap.toString()), after.minus(charged(raising)), after, { ...who, period, plan_id: planId });
  }
}

async function afterCommit(workspaceId: string, movements: CommittedMovement[], note: AppliedNote): Promise<void> {
  const hooks = await webhooksOf(workspaceId);
  if (!hooks.length) return;
  const balance = note.balances.get(workspaceId);
  if (balance !== undefined) balanceLow(workspaceId, hooks, movements, balance);
  const spenders = hooks.filter((w) => w.events.includes("spend.threshold") && w.spendShare !== null);
  if (!spenders.length) return;
  await keySpend(workspaceId, spenders, movements, note.keySpent);
  await counterSpend(workspaceId, spenders, movements, note.counters);
}

function applied(note: AppliedNote): void {
  const byWorkspace = new Map<string, CommittedMovement[]>();
  // One list per workspace, added to in place (a copy per movement made a batch of n cost n²/2).
  for (const m of note.movements) {
    if (!note.inserted.has(m.id)) continue;
    const list = byWorkspace.get(m.workspaceId);
    if (list) list.push(m);
    else byWorkspace.set(m.workspaceId, [m]);
  }
  for (const [workspaceId, movements] of byWorkspace) {
    afterCommit(workspaceId, movements, note).catch((err: unknown) => log.error({ err, workspaceId }, "ledger alerts failed"));
  }
}

function refused(note: BudgetRefusalNote): void {
  const [scope = "", period = ""] = note.counter.split("|");
  const who = scope.startsWith("key:") ? { scope: "key", key_id: scope.slice(4) } : scope.startsWith("subject:") ? { scope: "subject", subject: scope.slice(8) } : { scope: "session", session_id: scope.slice(8) };
  emitAlert(note.workspaceId, "budget.exceeded", `budget.exceeded:${note.workspaceId}:${note.counter}`, { ...who, period, cap_kind: note.label, cap: formatMoney(note.cap), spent: note.spent });
}

// On globalThis: the Next.js bundle's copy of this module and the server's own must not both listen.
const state = globalThis as unknown as { gatewayLedgerAlerts?: true };

/** Once per process: the alerts listen to the ledger's notes. */
export function subscribeLedgerAlerts(): void {
  if (state.gatewayLedgerAlerts) return;
  state.gatewayLedgerAlerts = true;
  onUsageApplied(applied);
  onBudgetRefused(refused);
}
