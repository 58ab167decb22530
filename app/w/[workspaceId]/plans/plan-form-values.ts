// The plan form's text fields, to and from what plans.create and plans.update take. Checks here
// only spare round trips: the server validates everything again.
import type { PlanView } from "@/server/identity/plans/plan-view";
import { LIFETIME_UNITS, splitLifetime, type LifetimeUnit } from "./plan-format";

export type PlanFormValues = {
  name: string;
  models: string;
  tools: string;
  rpm: string;
  tpm: string;
  concurrency: string;
  dailyCap: string;
  monthlyCap: string;
  lifetime: string;
  lifetimeUnit: LifetimeUnit;
};

export const EMPTY_PLAN: PlanFormValues = { name: "", models: "", tools: "", rpm: "", tpm: "", concurrency: "", dailyCap: "", monthlyCap: "", lifetime: "1", lifetimeUnit: "hours" };

export function planToValues(p: PlanView): PlanFormValues {
  const text = (n: number | null) => (n === null ? "" : String(n));
  const { value, unit } = splitLifetime(p.max_ttl_seconds);
  return {
    name: p.name,
    models: p.models.join("\n"),
    tools: p.tools.join("\n"),
    rpm: text(p.rpm),
    tpm: text(p.tpm),
    concurrency: text(p.concurrency),
    dailyCap: p.daily_cap ?? "",
    monthlyCap: p.monthly_cap ?? "",
    lifetime: String(value),
    lifetimeUnit: unit,
  };
}

export type PlanInput = {
  name: string;
  models: string[];
  tools: string[];
  rpm: number | null;
  tpm: number | null;
  concurrency: number | null;
  daily_cap: string | null;
  monthly_cap: string | null;
  max_ttl_seconds: number;
};

export type FieldErrors = Partial<Record<keyof PlanFormValues, string>>;

const WHOLE = /^\d+$/;
const DECIMAL = /^\d+(\.\d{1,18})?$/;

/** The plan as procedure input, or the fields that are not valid. */
export function valuesToInput(v: PlanFormValues): { input: PlanInput } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const limit = (key: "rpm" | "tpm" | "concurrency") => {
    const t = v[key].trim();
    if (!t) return null;
    if (!WHOLE.test(t) || Number(t) < 1) errors[key] = "A whole number above zero, or empty for none.";
    return Number(t);
  };
  const cap = (key: "dailyCap" | "monthlyCap") => {
    const t = v[key].trim();
    if (!t) return null;
    if (!DECIMAL.test(t)) errors[key] = "An amount in USD such as 5 or 0.25, or empty for no cap.";
    return t;
  };
  const unit = LIFETIME_UNITS.find((u) => u.unit === v.lifetimeUnit)!;
  const lifetime = v.lifetime.trim();
  const ttl = WHOLE.test(lifetime) ? Number(lifetime) * unit.seconds : NaN;
  if (!(ttl >= 60 && ttl <= 30 * 86_400)) errors.lifetime = "Between 1 minute and 30 days.";
  const input: PlanInput = {
    name: v.name.trim(),
    models: [...new Set(v.models.split(/[\s,]+/).filter(Boolean))],
    tools: [...new Set(v.tools.split(/[\s,]+/).filter(Boolean))],
    rpm: limit("rpm"),
    tpm: limit("tpm"),
    concurrency: limit("concurrency"),
    daily_cap: cap("dailyCap"),
    monthly_cap: cap("monthlyCap"),
    max_ttl_seconds: ttl,
  };
  return Object.keys(errors).length ? { errors } : { input };
}
