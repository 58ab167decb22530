// Admission of a call paid with x402, in place of the ledger's reservation: the call's payment
// requirements from its highest cost (402 with them when the request carried no payment), the
// payment's nonce claimed once across instances (a replay is refused), then verified by the
// facilitator (signature, network, asset, pay-to, amount, validity window, the payer's funds).
// The Metering it returns settles on chain for what the call cost when the call is charged
// (settle-call.ts); a call that fails releases the payment and nothing is settled.
import { Hold, type HoldOwner } from "../../ledger/hold";
import { roundReservation, type Metering } from "../../ledger/meter";
import type { Money } from "../../kernel/money";
import { notePhase } from "../../kernel/call-outcome";
import type { PaymentRequirements } from "@x402/core/types";
import type { X402Payment } from "../../identity/principal";
import type { X402Context } from "./principal";
import { claimPayment, dropClaim, releaseClaim, signedBy, type Claim } from "./payment-claims";
import { errors } from "../../kernel/errors";
import { paymentRequired, requirementsFor } from "./requirements";
import { paymentServer, type PaymentServer } from "./resource-server";
import { settleCall } from "./settle-call";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("x402");


export type PaidCall = { endpoint: string; model: string; maxCost: Money; eventId?: string; timeoutSeconds?: number };

/** x402 holds take nothing from a workspace's lease: the payer's authorization is the reservation. */
const PAYMENT_HOLDS: HoldOwner = { instanceId: "x402", unhold: () => undefined };

export async function serverOrUnavailable(): Promise<PaymentServer> {
  try {
    return await paymentServer();
  } catch (err) {
    throw errors.facilitatorUnavailable(err);
  }
}

/** The term the payment was signed for that differs from what the call accepts (the facilitator checks the rest). */
function mismatchOf(payment: X402Payment, requirements: PaymentRequirements): string | null {
  const { accepted } = payment;
  const same = (a: unknown, b: string) => typeof a === "string" && a.toLowerCase() === b.toLowerCase();
  if (!same(accepted.scheme, requirements.scheme)) return "scheme_mismatch";
  if (!same(accepted.asset, requirements.asset)) return "asset_mismatch";
  if (!same(accepted.payTo, requirements.payTo)) return "pay_to_mismatch";
  return null;
}

export type VerifiedPayment = { ps: PaymentServer; requirements: PaymentRequirements; claim: Claim; payment: X402Payment };

/** Verifies the call's payment and claims it, or throws 402 (what it accepts, or why its payment was refused) or 503. */
export async function verifyCallPayment(ctx: X402Context, call: PaidCall): Promise<VerifiedPayment> {
  const { payment, scheme, resource } = ctx.principal;
  if (!scheme) throw new Error("x402: admitting a call that is not paid for");
  const ps = await serverOrUnavailable();
  const requirements = await requirementsFor(ps, { scheme, maxCost: call.maxCost, timeoutSeconds: call.timeoutSeconds ?? ps.config.maxTimeoutSeconds });
  if (!payment) throw await paymentRequired(ps, requirements, resource);
  const mismatch = mismatchOf(payment, requirements);
  if (mismatch) throw await paymentRequired(ps, requirements, resource, mismatch, "the payment was signed for other terms than the call accepts");
  const signer = signedBy(payment);
  if (!signer) throw await paymentRequired(ps, requirements, resource, "invalid_payload", "the payment names no payer and nonce");
  // The nonce is claimed while the facilitator verifies (both are round trips; a replay loses
  // only the verification it started).
  const started = performance.now();
  const [claimed, verified] = await Promise.allSettled([
    claimPayment(payment, requirements, { endpoint: call.endpoint, modelId: call.model }, signer),
    ps.server.verifyPayment(payment, requirements),
  ]);
  if (claimed.status === "rejected") throw claimed.reason;
  const claim = claimed.value;
  if (!claim) throw await paymentRequired(ps, requirements, resource, "nonce_already_used", "this payment was used before");
  if (verified.status === "rejected") {
    await dropClaim(claim.id);
    throw errors.facilitatorUnavailable(verified.reason);
  }
  notePhase(ctx.outcome, "x402-verify", started);
  const verdict = verified.value;
  if (!verdict.isValid) {
    await dropClaim(claim.id);
    throw await paymentRequired(ps, requirements, resource, verdict.invalidReason ?? "invalid_payment", verdict.invalidMessage);
  }
  return { ps, requirements, claim, payment };
}

/** Verifies the call's payment and returns its metering: the call is charged by settling the payment. */
export async function admitPayment(ctx: X402Context, call: PaidCall): Promise<Metering> {
  const { ps, requirements, claim, payment } = await verifyCallPayment(ctx, call);
  const hold = new Hold(PAYMENT_HOLDS, {}, ctx.principal.workspaceId, roundReservation(call.maxCost));
  const state = { settled: false };
  hold.whenEnded(() => {
    if (!state.settled) void releaseClaim(claim.id).catch((err) => log.error({ err, requestId: ctx.requestId }, `x402: releasing payment ${claim.id} failed`));
  });
  const eventId = call.eventId ?? ctx.requestId;
  const metering: Metering = { ctx, eventId, endpoint: call.endpoint, hold, reservation: { endpoint: call.endpoint, maxCost: call.maxCost, eventId } };
  metering.settle = (charge, usage) => settleCall({ ctx, ps, claim, requirements, payment, hold, state }, charge, usage);
  return metering;
}
