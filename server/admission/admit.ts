// Admission of a call, from memory, before any node is called: the model against the caller's
// plan (403 model_not_allowed), its rate limits (429, limits/rate-gate.ts), then the ledger's
// reservation on its spend caps and the workspace's balance (402, ledger/meter.ts), or for a
// caller paying with x402 its payment (x402/admit-payment.ts). The rate limits' state goes into
// the call's outcome, so every answer reports it.
import type { CallContext } from "../identity/principal";
import { accessFor, assertModelAllowed, type Access } from "./access";
import type { Money } from "../kernel/money";
import { reserve, roundReservation, type Metering } from "../ledger/meter";
import { reserveBudgets } from "../ledger/budgets";
import { passRateLimits, type RateTicket } from "./limits/rate-gate";
import { admitPayment } from "./x402/admit-payment";
import type { X402Context } from "./x402/principal";

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

/**
 * What a modality's service returns for a call to a model, instead of running it: what admission
 * must know (the spec) and how to run the call once admitted: route -> call the provider ->
 * meter, composed by the service from the router (routing/nodes/router.ts), the provider adapter
 * (providers/) and the meter (ledger/meter.ts), since a stream meters at its end and a stored
 * response before its answer. The pipeline (server/pipeline/pipeline.ts) admits it, runs it, and
 * ends the reservation if it fails.
 */
export class ModelCall<A> {
  constructor(
    readonly spec: CallSpec,
    /** Runs the admitted call; when it returns, the reservation is charged or handed to what it returned (a stream, a background run). */
    readonly run: (metering: Metering) => Promise<A>,
  ) {}
}

/** What an operation answers: its service's result, or the answer of the model call it returned. */
export type Answer<R> = R extends ModelCall<infer A> ? A : R;

const NO_RATE: RateTicket = { settle: () => undefined, release: () => undefined };

/** Whether any rate limit applies (most keys have none). */
const limited = (l: Access["limits"]) => l.rpm !== null || l.tpm !== null || l.concurrency !== null;

async function gate(ctx: CallContext, spec: CallSpec): Promise<{ access: Access; rate: RateTicket }> {
  const access = await accessFor(ctx);
  assertModelAllowed(access, spec.model);
  const tokens = Math.max(0, Math.floor(spec.tokens ?? 0));
  const rate = access.limitScope && limited(access.limits) ? await passRateLimits(access.limitScope, access.limits, tokens, (ctx.outcome.rateLimits ??= {})) : NO_RATE;
  return { access, rate };
}

/** Admits a call and reserves what it can cost, or throws 403, 429 or 402. A call paid with x402 is admitted by its payment. */
export async function admit(ctx: CallContext, spec: CallSpec): Promise<Metering> {
  if (ctx.principal.kind === "x402") return admitPayment(ctx as X402Context, spec);
  const { access, rate } = await gate(ctx, spec);
  try {
    const m = await reserve(ctx, {
      endpoint: spec.endpoint,
      maxCost: spec.maxCost,
      eventId: spec.eventId,
      budgets: access.budgets,
      planId: access.planId,
      subject: access.subject,
      onUsage: rate.settle,
    });
    m.hold.whenEnded(rate.release);
    return m;
  } catch (err) {
    rate.settle(0);
    rate.release();
    throw err;
  }
}

/**
 * The checks of `admit` for a call whose money is reserved another way (a video job reserves in
 * its own transaction): the plan's models, rate limits and spend caps. `end` once the call is
 * placed. Its reservation is held on the caps in memory while it is created; the ledger checks
 * the open jobs of the same subject in the creating transaction (ledger/budgets.ts).
 */
export async function admitWithoutHold(ctx: CallContext, spec: CallSpec): Promise<{ access: Access; end: () => void }> {
  const { access, rate } = await gate(ctx, spec);
  try {
    const endBudgets = await reserveBudgets(ctx.principal.workspaceId, access.budgets, roundReservation(spec.maxCost));
    return { access, end: () => (endBudgets(), rate.release()) };
  } catch (err) {
    rate.release();
    throw err;
  }
}
