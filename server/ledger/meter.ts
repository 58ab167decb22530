// The meter: what the inference services call. Before a node is called, `admit` checks what the
// caller may do and reserves what the call can cost, all from memory: the model against the
// caller's plan (403 model_not_allowed), its rate limits (429, limits/rate-gate.ts), its spend
// caps (402 budget_exceeded, budgets.ts) and the call's highest possible cost from this
// instance's credit lease (402 insufficient_quota). When the node answered, `recordCall` charges
// the call through the batched usage writer and resolves once the charge is committed, so callers
// can hold their last byte until then; the reservations end with the commit. A call that fails
// ends them with `release` and costs nothing.
//
// The charge is capped at the reservation. Honest nodes never reach the cap (the reservation is an
// upper bound of what the request can cost, see routing/catalog/pricing.ts), so the cap only
// bites when a node reports more than the request allowed; that excess is not billed, which keeps
// every workspace within its credit (the bound in docs/BILLING.md) and never charges a client
// more than the most its request could cost.
import { accessOf, assertModelAllowed, type Access } from "../identity/access";
import type { CallContext } from "../identity/principal";
import { money, Money } from "../kernel/money";
import { passRateLimits, type RateTicket } from "../limits/rate-gate";
import { reserveBudgets } from "./budgets";
import { leaseBook, type Hold } from "./credit-leases";
import { toStored, usageMovement, type UsageRecord } from "./movements";
import { usageWriter } from "./usage-writer";

/** A call admitted for billing: who pays, under which idempotency key, and its reservations. */
export type Metering = { ctx: CallContext; eventId: string; endpoint: string; hold: Hold; access: Access; rate: RateTicket };

/** What admission needs to know of a call. */
export type CallSpec = {
  endpoint: string;
  /** The catalog's model id. */
  model: string;
  /** The most the call can cost. */
  maxCost: Money;
  /** The most tokens it can use (input and output), for tokens-per-minute limits; 0 or absent: not counted in tokens. */
  tokens?: number;
  /** The usage event's id; the request id unless given (e.g. a response id). */
  eventId?: string;
};

/** Stored amounts have 18 places: a reservation is rounded up to them, so a capped charge fits it exactly. */
const reservation = (maxCost: Money) => money(maxCost).toDecimalPlaces(18, Money.ROUND_UP);

/** Admits a call before any node is called, or throws 403, 429 or 402 (see above). */
export async function admit(ctx: CallContext, spec: CallSpec): Promise<Metering> {
  const access = await accessOf(ctx.principal);
  assertModelAllowed(access, spec.model);
  const amount = reservation(spec.maxCost);
  const tokens = Math.max(0, Math.floor(spec.tokens ?? 0));
  const rate = access.limitScope ? await passRateLimits(access.limitScope, access.limits, tokens, (ctx.answerHeaders ??= {})) : NO_RATE;
  let endBudgets: (() => void) | undefined;
  try {
    endBudgets = await reserveBudgets(ctx.principal.workspaceId, access.budgets, amount);
    const hold = await leaseBook().hold(ctx.principal.workspaceId, amount);
    hold.whenEnded(endBudgets);
    hold.whenEnded(rate.release);
    return { ctx, eventId: spec.eventId ?? ctx.requestId, endpoint: spec.endpoint, hold, access, rate };
  } catch (err) {
    endBudgets?.();
    rate.settle(0);
    rate.release();
    throw err;
  }
}

/**
 * The checks of `admit` for a call whose money is reserved another way (a video job reserves in
 * its own transaction): the plan's models, rate limits and spend caps. `end` once the call is
 * placed. The caps count what the job reserved only while it is being created (docs/LIMITS.md).
 */
export async function admitWithoutHold(ctx: CallContext, spec: CallSpec): Promise<{ access: Access; end: () => void }> {
  const access = await accessOf(ctx.principal);
  assertModelAllowed(access, spec.model);
  const rate = access.limitScope ? await passRateLimits(access.limitScope, access.limits, 0, (ctx.answerHeaders ??= {})) : NO_RATE;
  try {
    const endBudgets = await reserveBudgets(ctx.principal.workspaceId, access.budgets, reservation(spec.maxCost));
    return { access, end: () => (endBudgets(), rate.release()) };
  } catch (err) {
    rate.release();
    throw err;
  }
}

const NO_RATE: RateTicket = { settle: () => undefined, release: () => undefined };

/** Ends the reservations of a call that will not be charged (it failed). Idempotent; a no-op once charged. */
export function release(m: Metering): void {
  if (m.hold.isOpen) m.rate.settle(0);
  m.hold.end();
}

type Units = Omit<UsageRecord, "eventId" | "modelId" | "nodeId" | "endpoint" | "latencyMs" | "planId" | "subject"> & { cost: Money };

/** Charges a finished call: its model, node, duration (from `started`) and units; resolves once committed. */
export function recordCall(m: Metering, call: { modelId: string; nodeId: string; started: number }, units: Units): Promise<void> {
  const { cost, ...counts } = units;
  m.rate.settle((counts.inputTokens ?? 0) + (counts.outputTokens ?? 0));
  const capped = Money.min(toStored(cost), m.hold.amount);
  const movement = usageMovement(
    { workspaceId: m.ctx.principal.workspaceId, apiKeyId: m.ctx.principal.keyId },
    capped,
    {
      ...counts,
      eventId: m.eventId,
      modelId: call.modelId,
      nodeId: call.nodeId,
      endpoint: m.endpoint,
      latencyMs: Math.round(performance.now() - call.started),
      planId: m.access.planId,
      subject: m.access.subject,
    },
    m.hold.instanceId,
    m.access.budgets.map((b) => b.counter),
  );
  return usageWriter().record(movement, m.hold);
}
