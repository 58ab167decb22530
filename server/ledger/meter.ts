// The meter: what the inference services call. Before a node is called, `admit` reserves the
// call's highest possible cost from this instance's credit lease (from memory; 402
// insufficient_quota when it cannot be covered). When the node answered, `recordCall` charges the
// call through the batched usage writer and resolves once the charge is committed, so callers can
// hold their last byte until then; the reservation ends with the commit. A call that fails ends
// its reservation with `release` and costs nothing.
//
// The charge is capped at the reservation. Honest nodes never reach the cap (the reservation is an
// upper bound of what the request can cost, see routing/catalog/pricing.ts), so the cap only
// bites when a node reports more than the request allowed; that excess is not billed, which keeps
// every workspace within its credit (the bound in docs/BILLING.md) and never charges a client
// more than the most its request could cost.
import { money, Money } from "../kernel/money";
import { leaseBook, type Hold } from "./credit-leases";
import { toStored, usageMovement, type UsageRecord } from "./movements";
import { usageWriter } from "./usage-writer";

/** Who pays: the workspace, and the API key the call was made with (null for dashboard users). */
export type Payer = { workspaceId: string; keyId: string | null };
type CallContext = { principal: Payer; requestId: string };

/** A call admitted for billing: who pays, under which idempotency key, and its reservation. */
export type Metering = { ctx: CallContext; eventId: string; endpoint: string; hold: Hold };

/** Stored amounts have 18 places: a reservation is rounded up to them, so a capped charge fits it exactly. */
const reservation = (maxCost: Money) => money(maxCost).toDecimalPlaces(18, Money.ROUND_UP);

/**
 * Reserves the call's highest possible cost before any node is called; 402 insufficient_quota
 * when the workspace cannot cover it. The event id is the request id unless given (e.g. a response id).
 */
export async function admit(ctx: CallContext, endpoint: string, maxCost: Money, eventId = ctx.requestId): Promise<Metering> {
  const hold = await leaseBook().hold(ctx.principal.workspaceId, reservation(maxCost));
  return { ctx, eventId, endpoint, hold };
}

/** Ends the reservation of a call that will not be charged (it failed). Idempotent; a no-op once charged. */
export function release(m: Metering): void {
  m.hold.end();
}

type Units = Omit<UsageRecord, "eventId" | "modelId" | "nodeId" | "endpoint" | "latencyMs"> & { cost: Money };

/** Charges a finished call: its model, node, duration (from `started`) and units; resolves once committed. */
export function recordCall(m: Metering, call: { modelId: string; nodeId: string; started: number }, units: Units): Promise<void> {
  const { cost, ...counts } = units;
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
    },
    m.hold.instanceId,
  );
  return usageWriter().record(movement, m.hold);
}
