// What a caller may do beyond its credential: the models its plan (and a restricted key's own
// list) allows, the rate limits that apply to it (and what they are counted by), and the spend
// caps its calls are checked against.
// From memory (the plan cache); resolved once per admitted call.
import { errors } from "../kernel/errors";
import type { Budget } from "../ledger/budgets";
import { counterName, dayPeriod, monthPeriod, TOTAL_PERIOD, type CounterScope } from "../kernel/spend-counters";
import { effectiveLimits, rulesWithPlan, workspaceRules, type Limits, type PlanRule } from "../identity/plans/plan-cache";
import type { CallContext, Principal } from "../identity/principal";

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
  if (p.kind === "user" || p.kind === "x402") return { planId: null, subject: null, plan: null, keyModels: null, limits: NO_LIMITS, limitScope: null, budgets: [] };
  const rules = p.planId ? await rulesWithPlan(p.workspaceId, p.planId) : await workspaceRules(p.workspaceId);
  const plan = p.planId ? (rules.plans.get(p.planId) ?? null) : null;
  const limits = effectiveLimits(rules, plan);
  if (p.kind === "api_key") {
    return { planId: plan?.id ?? null, subject: null, plan, keyModels: p.grant?.models ?? null, limits, limitScope: `key:${p.keyId}`, budgets: capsOf(`key:${p.keyId}`, plan, now) };
  }
  const budgets = capsOf(`subject:${p.subject}`, plan, now);
  if (p.sessionId && p.spendCap !== null) {
    budgets.push({ counter: counterName(`session:${p.sessionId}`, TOTAL_PERIOD), cap: p.spendCap, label: "session", period: TOTAL_PERIOD });
  }
  return { planId: p.planId, subject: p.subject, plan, keyModels: null, limits, limitScope: `plan:${p.planId}:subject:${p.subject}`, budgets };
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
