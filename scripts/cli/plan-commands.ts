import { cliActor } from "../../server/audit/actor";
import { createPlan, deletePlan, listPlans, updatePlan, ZPlanFields, ZPlanPatch } from "../../server/identity/plans/manage-plans";
import type { PlanView } from "../../server/identity/plans/plan-view";
import { parse, required, UsageError, type Command } from "./args";
import { amount, checked, limit, list, wholeNumber } from "./flag-values";
import { table } from "./output";
import { requireWorkspace } from "./require-workspace";

const PLAN_FLAGS = {
  name: { type: "string" },
  models: { type: "string" },
  tools: { type: "string" },
  rpm: { type: "string" },
  tpm: { type: "string" },
  concurrency: { type: "string" },
  "daily-cap": { type: "string" },
  "monthly-cap": { type: "string" },
  "max-ttl": { type: "string" },
  region: { type: "string" },
} as const;

/** The services' field names and the flags that set them. */
const FLAG_OF: Record<string, string> = {
  name: "name",
  models: "models",
  tools: "tools",
  rpm: "rpm",
  tpm: "tpm",
  concurrency: "concurrency",
  daily_cap: "daily-cap",
  monthly_cap: "monthly-cap",
  max_ttl_seconds: "max-ttl",
  region: "region",
};

type PlanFlagValues = { [K in keyof typeof PLAN_FLAGS]?: string };

/** The fields the flags give (undefined: not given; null: "none"). */
function planFields(v: PlanFlagValues) {
  return {
    name: v.name,
    models: list(v.models),
    tools: list(v.tools),
    rpm: limit(v.rpm, "rpm"),
    tpm: limit(v.tpm, "tpm"),
    concurrency: limit(v.concurrency, "concurrency"),
    daily_cap: amount(v["daily-cap"], "daily-cap"),
    monthly_cap: amount(v["monthly-cap"], "monthly-cap"),
    max_ttl_seconds: wholeNumber(v["max-ttl"], "max-ttl"),
    region: v.region === undefined ? undefined : v.region === "none" ? null : v.region,
  };
}

const withoutUndefined = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

const planRows = (plans: PlanView[]) =>
  plans.map((p) => ({
    id: p.id,
    name: p.name,
    models: p.models.join(",") || "all",
    rpm: p.rpm,
    tpm: p.tpm,
    concurrency: p.concurrency,
    daily_cap: p.daily_cap,
    monthly_cap: p.monthly_cap,
    max_ttl: p.max_ttl_seconds,
    region: p.region ?? "",
    tools: p.tools.join(",") || "all",
  }));

export const planCommands: Record<string, Command> = {
  "plan create": (argv) => {
    const { values, args } = parse(argv, PLAN_FLAGS, ["WORKSPACE_ID"]);
    const fields = planFields(values);
    const input = checked(ZPlanFields, { ...withoutUndefined(fields), name: required(values.name, "name") }, FLAG_OF);
    return async () => {
      const plan = await createPlan(args[0]!, input, cliActor());
      return { json: { plan }, text: `Created plan ${plan.id} (${plan.name}).\n${table(planRows([plan]))}`, asJson: values.json };
    };
  },
  "plan list": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID"]);
    return async () => {
      await requireWorkspace(args[0]!);
      const plans = await listPlans(args[0]!);
      return { json: { plans }, text: table(planRows(plans)), asJson: values.json };
    };
  },
  "plan update": (argv) => {
    const { values, args } = parse(argv, PLAN_FLAGS, ["WORKSPACE_ID", "PLAN_ID"]);
    const patch = withoutUndefined(planFields(values));
    if (!Object.keys(patch).length) throw new UsageError("plan update needs at least one flag to change");
    const input = checked(ZPlanPatch, patch, FLAG_OF);
    return async () => {
      const plan = await updatePlan(args[0]!, args[1]!, input, cliActor());
      return { json: { plan }, text: `Updated plan ${plan.id} (${plan.name}).\n${table(planRows([plan]))}`, asJson: values.json };
    };
  },
  "plan delete": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID", "PLAN_ID"]);
    return async () => {
      const deleted = await deletePlan(args[0]!, args[1]!, cliActor());
      return {
        json: deleted,
        text: `Deleted plan ${deleted.id}: its sessions have ended and its keys fall back to the workspace's limits.`,
        asJson: values.json,
      };
    };
  },
};
