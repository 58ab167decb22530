// Admission of a call, from memory, before any node is called. What a caller may do beyond its
// credential (its access: the models its plan, and a restricted key's own list, allow; the rate
// limits that apply to it and what they are counted by; the spend caps its calls are checked
// against), from the plan cache, resolved once per call. Then the call: the model against the
// caller's plan (403 model_not_allowed), its rate limits (429, limits/rate-gate.ts), then the
// ledger's reservation on its spend caps and the workspace's balance (402, ledger/meter.ts), or
// for a caller paying with x402 its payment (x402/admit-payment.ts). The rate limits' state goes
// into the call's outcome, so every answer reports it.
import { effectiveLimits, guardrailsFor, rulesWithPlan, workspaceRules, type GuardrailRow, type Limits, type PlanRule } from "../identity/plans/plan-cache";
import type { CallContext, Principal } from "../identity/principal";
import { errors } from "../kernel/errors";
import { money, type Money } from "../kernel/money";
import { counterName, dayPeriod, monthPeriod, TOTAL_PERIOD, type CounterScope } from "../kernel/spend-counters";
import { reserveBudgets, type Budget } from "../ledger/budgets";
import { reserve, roundReservation, type Metering } from "../ledger/meter";
import { passRateLimits, type RateTicket } from "./limits/rate-gate";
import { admitPayment } from "./x402/admit-payment";
import type { X402Context } from "./x402/principal";

export type Access = {
  planId: string | null;
  subject: string | null;
  plan: PlanRule | null;
  /** The models a restricted API key was given, beside its plan's; null: no restriction of its own. */
  keyModels: ReadonlySet<string> | null;
  limits: Limits;
  /** What rate limits are counted by: a key, or a subject under a plan; null: no limits (dashboard users). */
  limitScope: string | null;
  budgets: Budget[];
  /** The guardrails that run on the caller's calls, in order (server/guardrails/); null: none. */
  guardrails: readonly GuardrailRow[] | null;
};

const NO_LIMITS: Limits = { rpm: null, tpm: null, concurrency: null };

function capsOf(scope: CounterScope, plan: PlanRule | null, now: Date): Budget[] {
  const rules: Budget[] = [];
  if (plan?.dailyCap) rules.push({ counter: counterName(scope, dayPeriod(now)), cap: plan.dailyCap, label: "daily", period: dayPeriod(now) });
  if (plan?.monthlyCap) rules.push({ counter: counterName(scope, monthPeriod(now)), cap: plan.monthlyCap, label: "monthly", period: monthPeriod(now) });
  return rules;
}

const resolved = new WeakMap<CallContext, Promise<Access>>();

/**
 * What the call's caller may do, resolved once per call: the pipeline starts it as soon as the
 * credential is known, admission and the answer's rate-limit state read the same promise.
 */
export function accessFor(ctx: CallContext): Promise<Access> {
  let access = resolved.get(ctx);
  if (!access) {
    access = accessOf(ctx.principal);
    access.catch(() => undefined); // awaited by whoever needs it
    resolved.set(ctx, access);
  }
  return access;
}

export async function accessOf(p: Principal, now = new Date()): Promise<Access> {
  // Dashboard users and x402 payers have no plan, rate limits or caps: a payer pays each call.
  // Their workspace's guardrails (the x402 workspace's for a payer) apply to them all the same.
  if (p.kind === "user" || p.kind === "x402") {
    const guardrails = guardrailsFor(await workspaceRules(p.workspaceId), p);
    return { planId: null, subject: null, plan: null, keyModels: null, limits: NO_LIMITS, limitScope: null, budgets: [], guardrails };
  }
  const rules = p.planId ? await rulesWithPlan(p.workspaceId, p.planId) : await workspaceRules(p.workspaceId);
  const plan = p.planId ? (rules.plans.get(p.planId) ?? null) : null;
  const limits = effectiveLimits(rules, plan);
  const guardrails = guardrailsFor(rules, p);
  if (p.kind === "api_key") {
    return { planId: plan?.id ?? null, subject: null, plan, keyModels: p.grant?.models ?? null, limits, limitScope: `key:${p.keyId}`, budgets: capsOf(`key:${p.keyId}`, plan, now), guardrails };
  }
  const budgets = capsOf(`subject:${p.subject}`, plan, now);
  if (p.sessionId && p.spendCap !== null) {
    budgets.push({ counter: counterName(`session:${p.sessionId}`, TOTAL_PERIOD), cap: p.spendCap, label: "session", period: TOTAL_PERIOD });
  }
  return { planId: p.planId, subject: p.subject, plan, keyModels: null, limits, limitScope: `plan:${p.planId}:subject:${p.subject}`, budgets, guardrails };
}

/** 403 model_not_allowed when the caller's plan, or its key's own list, does not include the model. */
export function assertModelAllowed(access: Access, model: string): void {
  if (access.plan?.models && !access.plan.models.has(model)) throw errors.modelNotAllowed(model, access.plan.name);
  if (access.keyModels && !access.keyModels.has(model)) throw errors.keyModelNotAllowed(model);
}

/** The models a caller may call: its plan's, within its key's own list; null: every model. */
export async function allowedModels(p: Principal | null): Promise<ReadonlySet<string> | null> {
  if (!p || p.kind === "user" || p.kind === "x402") return null;
  const planModels = p.planId ? ((await workspaceRules(p.workspaceId)).plans.get(p.planId)?.models ?? null) : null;
  const keyModels = p.kind === "api_key" ? (p.grant?.models ?? null) : null;
  if (!planModels || !keyModels) return planModels ?? keyModels;
  return new Set([...keyModels].filter((m) => planModels.has(m)));
}

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

async function gate(ctx: CallContext, spec: Omit<CallSpec, "model"> & { model: string | null }): Promise<{ access: Access; rate: RateTicket }> {
  const access = await accessFor(ctx);
  if (spec.model !== null) assertModelAllowed(access, spec.model);
  const tokens = Math.max(0, Math.floor(spec.tokens ?? 0));
  const rate = access.limitScope && limited(access.limits) ? await passRateLimits(access.limitScope, access.limits, tokens, (ctx.outcome.rateLimits ??= {})) : NO_RATE;
  return { access, rate };
}

/** Admits a call and reserves what it can cost, or throws 403, 429 or 402. A call paid with x402 is admitted by its payment. */
export async function admit(ctx: CallContext, spec: CallSpec): Promise<Metering> {
  if (ctx.principal.kind === "x402") return admitPayment(ctx as X402Context, spec);
  return admitSpend(ctx, spec);
}

/**
 * Admits a call on the caller's rate limits and reserves what it can cost on its caps and
 * balance; throws 403, 429 or 402. `model` null: a call that is not to a model (an MCP tool's,
 * whose caller checked the tool is allowed).
 */
export async function admitSpend(ctx: CallContext, spec: Omit<CallSpec, "model"> & { model: string | null }): Promise<Metering> {
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
/** The rate limits of a call that costs nothing (a free MCP tool's); `end` once it is over (counted as 0 tokens). */
export async function admitFree(ctx: CallContext): Promise<() => void> {
  const { rate } = await gate(ctx, { endpoint: "", model: null, maxCost: money(0) });
  return () => (rate.settle(0), rate.release());
}

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
