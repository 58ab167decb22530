// The meter: before a node is called, `reserve` checks the call's spend caps (402
// budget_exceeded, budgets.ts) and reserves its highest possible cost from this instance's credit
// lease (402 insufficient_quota), both from memory. When the node answered, `recordCall` charges
// the call through the batched usage writer and resolves once the charge is committed, so callers
// can hold their last byte until then; the reservations end with the commit. A call that fails
// ends them with `release` and costs nothing. What the caller may do beyond paying (its plan's
// models, its rate limits) is decided before, by admission (server/admission/admit.ts).
//
// The charge is capped at the reservation. Honest nodes never reach the cap (the reservation is an
// upper bound of what the request can cost, see routing/catalog/pricing.ts), so the cap only
// bites when a node reports more than the request allowed; that excess is not billed, which keeps
// every workspace within its credit (the bound in docs/BILLING.md) and never charges a client
// more than the most its request could cost.
import type { CallContext } from "../kernel/call-context";
import { money, Money } from "../kernel/money";
import { reserveBudgets, type Budget } from "./budgets";
import { leaseBook, type Hold } from "./credit-leases";
import { toStored, usageMovement, type UsageRecord } from "./movements";
import { explainRefusal } from "./quota-refusal";
import { metrics } from "../infra/telemetry/metrics";
import { usageWriter } from "./usage-writer";

/** What the ledger is told of a call before it is reserved. */
export type Reservation = {
  endpoint: string;
  /** The most the call can cost. */
  maxCost: Money;
  /** The usage event's id; the request id unless given (e.g. a response id). */
  eventId?: string;
  /** Spend caps the call is checked against and whose counters its charge raises. */
  budgets?: readonly Budget[];
  /** Recorded with the usage: the plan and end-user subject of the call. */
  planId?: string | null;
  subject?: string | null;
  /** Told the tokens the call really used when it is charged (0 when it fails). */
  onUsage?: (tokens: number) => void;
};

/**
 * A call admitted for billing: who pays, under which idempotency key, and its reservations.
 * `settle` charges it another way than from the workspace's balance (an x402 payment, settled on
 * chain for the charge): it resolves once the charge is committed, like the ledger's own.
 */
export type Metering = {
  ctx: CallContext;
  eventId: string;
  endpoint: string;
  hold: Hold;
  reservation: Reservation;
  settle?: (charge: Money, usage: UsageRecord) => Promise<void>;
};

/** Stored amounts have 18 places: a reservation is rounded up to them, so a capped charge fits it exactly. */
export const roundReservation = (maxCost: Money) => money(maxCost).toDecimalPlaces(18, Money.ROUND_UP);

/** Reserves a call's highest cost on its caps and its workspace's balance, or throws 402. */
export async function reserve(ctx: CallContext, r: Reservation): Promise<Metering> {
  const amount = roundReservation(r.maxCost);
  const endBudgets = r.budgets?.length ? await reserveBudgets(ctx.principal.workspaceId, r.budgets, amount) : null;
  try {
    const hold = await leaseBook().hold(ctx.principal.workspaceId, amount);
    if (endBudgets) hold.whenEnded(endBudgets);
    return { ctx, eventId: ctx.batchLine?.eventId ?? r.eventId ?? ctx.requestId, endpoint: r.endpoint, hold, reservation: r };
  } catch (err) {
    endBudgets?.();
    throw await explainRefusal(err, ctx.principal.workspaceId);
  }
}

/** Ends the reservations of a call that will not be charged (it failed). Idempotent; a no-op once charged. */
export function release(m: Metering): void {
  if (m.hold.isOpen) m.reservation.onUsage?.(0);
  m.hold.end();
}

/** Now as an ISO string, made once per millisecond (calls ending in the same one share it). */
let isoAt = 0;
let isoText = "";
function isoNow(): string {
  const t = Date.now();
  if (t !== isoAt) {
    isoAt = t;
    isoText = new Date(t).toISOString();
  }
  return isoText;
}

type Units = Omit<UsageRecord, "eventId" | "modelId" | "nodeId" | "endpoint" | "latencyMs" | "planId" | "subject"> & { cost: Money };

/** Charges a finished call: its model, node (null: answered by the response cache), duration (from `started`) and units; resolves once committed. */
export function recordCall(m: Metering, call: { modelId: string; nodeId: string | null; started: number }, units: Units): Promise<void> {
  const live = units.cost;
  // A batch line costs the batch's fraction of the live price.
  const cost = m.ctx.batchLine ? money(live).times(m.ctx.batchLine.priceFactor) : live;
  const r = m.reservation;
  r.onUsage?.((units.inputTokens ?? 0) + (units.outputTokens ?? 0));
  const capped = Money.min(toStored(cost), m.hold.amount);
  const nodeMs = performance.now() - call.started;
  // Every field of a UsageRecord named, in one order (an object spread and then added to took
  // 5 % of a cache hit's CPU: each call's record got a shape of its own).
  const usage: UsageRecord = {
    eventId: m.eventId,
    modelId: call.modelId,
    nodeId: call.nodeId,
    endpoint: m.endpoint,
    inputTokens: units.inputTokens,
    cachedTokens: units.cachedTokens,
    cacheWriteTokens: units.cacheWriteTokens,
    outputTokens: units.outputTokens,
    reasoningTokens: units.reasoningTokens,
    estimated: units.estimated,
    tags: m.ctx.outcome?.tags ?? null,
    characters: units.characters,
    audioSeconds: units.audioSeconds,
    images: units.images,
    videoSeconds: units.videoSeconds,
    latencyMs: Math.round(nodeMs),
    planId: r.planId ?? null,
    subject: r.subject ?? null,
    payer: units.payer,
    paymentScheme: units.paymentScheme,
    paymentTx: units.paymentTx,
    cacheHit: units.cacheHit,
    cacheSaved: units.cacheSaved,
    at: isoNow(),
  } satisfies Record<keyof UsageRecord, unknown>;
  const observer = m.ctx.observer;
  const inputTokens = units.inputTokens ?? 0;
  const outputTokens = units.outputTokens ?? 0;
  observer?.charged({ modelId: call.modelId, nodeId: call.nodeId, nodeMs, inputTokens, outputTokens, cost: capped.toString(), usageEstimated: units.estimated });
  const write = (
    m.settle
      ? m.settle(capped, usage)
      : usageWriter().record(
          usageMovement({ workspaceId: m.ctx.principal.workspaceId, apiKeyId: m.ctx.principal.keyId }, capped, usage, m.hold.instanceId, r.budgets?.map((b) => b.counter)),
          m.hold,
        )
  ).then(() => countUsage(call.modelId, { inputTokens, outputTokens }, capped));
  return observer ? observer.usageWrite(write) : write;
}

/** The usage the ledger committed, as Prometheus counters: tokens and USD by model (floats for dashboards and alerts; the ledger's rows hold the exact amounts). */
export function countUsage(modelId: string, tokens: { inputTokens?: number; outputTokens?: number }, cost: Money): void {
  const m = metrics();
  if (tokens.inputTokens) m.tokens.inc({ model: modelId, direction: "input" }, tokens.inputTokens);
  if (tokens.outputTokens) m.tokens.inc({ model: modelId, direction: "output" }, tokens.outputTokens);
  if (!cost.isZero()) m.cost.inc({ model: modelId }, cost.toNumber());
}
