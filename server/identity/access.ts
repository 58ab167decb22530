// What a caller may do beyond its credential: the models its plan allows, the rate limits that
// apply to it (and what they are counted by), and the spend caps its calls are checked against.
// From memory (the plan cache); resolved once per admitted call.
import { errors } from "../kernel/errors";
import type { Budget } from "../ledger/budgets";
import { counterName, dayPeriod, monthPeriod, TOTAL_PERIOD, type CounterScope } from "../kernel/spend-counters";
import { effectiveLimits, rulesWithPlan, workspaceRules, type Limits, type PlanRule } from "./plans/plan-cache";
import type { Principal } from "./principal";

export type Access = {
  planId: string | null;
  subject: string | null;
  plan: PlanRule | null;
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

export async function accessOf(p: Principal, now = new Date()): Promise<Access> {
  // Dashboard users and x402 payers have no plan, rate limits or caps: a payer pays each call.
  if (p.kind === "user" || p.kind === "x402") return { planId: null, subject: null, plan: null, limits: NO_LIMITS, limitScope: null, budgets: [] };
  const rules = p.planId ? await rulesWithPlan(p.workspaceId, p.planId) : await workspaceRules(p.workspaceId);
  const plan = p.planId ? (rules.plans.get(p.planId) ?? null) : null;
  const limits = effectiveLimits(rules, plan);
  if (p.kind === "api_key") {
    return { planId: plan?.id ?? null, subject: null, plan, limits, limitScope: `key:${p.keyId}`, budgets: capsOf(`key:${p.keyId}`, plan, now) };
  }
  const budgets = capsOf(`subject:${p.subject}`, plan, now);
  if (p.sessionId && p.spendCap !== null) {
    budgets.push({ counter: counterName(`session:${p.sessionId}`, TOTAL_PERIOD), cap: p.spendCap, label: "session", period: TOTAL_PERIOD });
  }
  return { planId: p.planId, subject: p.subject, plan, limits, limitScope: `plan:${p.planId}:subject:${p.subject}`, budgets };
}

/** 403 model_not_allowed when the caller's plan does not include the model. */
export function assertModelAllowed(access: Access, model: string): void {
  if (!access.plan?.models || access.plan.models.has(model)) return;
  throw errors.modelNotAllowed(model, access.plan.name);
}

/** The models a caller's plan allows; null: every model. */
export async function allowedModels(p: Principal | null): Promise<ReadonlySet<string> | null> {
  if (!p || p.kind === "user" || p.kind === "x402" || !p.planId) return null;
  return (await workspaceRules(p.workspaceId)).plans.get(p.planId)?.models ?? null;
}
