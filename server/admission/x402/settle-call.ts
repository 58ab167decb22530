// The charge of a call paid with x402: its cost in atomic units (rounded up; `exact` pays the
// price it authorized), settled on chain and recorded, then reported to the client as the call's
// payment receipt (the transport sends it in the PAYMENT-RESPONSE header of the answer, or for a
// stream, whose headers went out first, in a last `payment_response` event after its end). A refused settlement fails the call (402;
// 503 when the facilitator could not be asked): nothing is answered that was not paid for.
import type { PaymentRequirements } from "@x402/core/types";
import type { Hold } from "../../ledger/hold";
import type { UsageRecord } from "../../ledger/movements";
import type { Money } from "../../kernel/money";
import type { X402Payment } from "../../identity/principal";
import { fromAtomic, toAtomic } from "./amounts";
import { failClaim, type Claim } from "./payment-claims";
import { errors } from "../../kernel/errors";
import { paymentRequired } from "./requirements";
import type { PaymentServer } from "./resource-server";
import { recordSettlement, settleOnChain } from "./settlement";
import type { X402Context } from "./principal";
import { notePhase } from "../../kernel/call-outcome";

type Admitted = { ctx: X402Context; ps: PaymentServer; claim: Claim; requirements: PaymentRequirements; payment: X402Payment; hold: Hold; state: { settled: boolean } };

export async function settleCall(a: Admitted, charge: Money, usage: UsageRecord): Promise<void> {
  const max = BigInt(a.requirements.amount);
  const metered = toAtomic(charge, a.ps.config.decimals);
  const amount = a.claim.scheme === "exact" ? max : metered < max ? metered : max;
  const settleable = { id: a.claim.id, payer: a.claim.payer, scheme: a.claim.scheme, payment: a.payment, requirements: a.requirements };
  let since = performance.now();
  const settled = await settleOnChain(a.ps, settleable, amount);
  notePhase(a.ctx.outcome, "x402-settle", since);
  if (!settled.response.success) {
    await failClaim(a.claim.id, settled.response.errorReason ?? "settle_failed");
    a.hold.end();
    if (settled.unreachable) throw errors.facilitatorUnavailable(settled.unreachable);
    throw await paymentRequired(a.ps, a.requirements, a.ctx.principal.resource, settled.response.errorReason ?? "settle_failed", settled.response.errorMessage);
  }
  since = performance.now();
  try {
    await recordSettlement(a.ps, settleable, settled, usage);
    notePhase(a.ctx.outcome, "x402-record", since);
  } finally {
    // Settled on chain: never released, even if recording failed (the log says so; the chain has it).
    a.state.settled = true;
    a.hold.end();
  }
  a.ctx.outcome.payment = { ...settled.response, payer: settled.response.payer ?? a.claim.payer, amount: settled.amount.toString() };
  a.ctx.observer?.settled?.(fromAtomic(settled.amount, a.ps.config.decimals).toString());
}
