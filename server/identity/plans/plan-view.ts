import { z } from "zod";
import { formatMoney } from "../../kernel/money";

export const ZPlanView = z.object({
  object: z.literal("plan"),
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  /** Model ids the plan allows; empty: every model. */
  models: z.array(z.string()),
  /** Patterns of the MCP tools the plan allows (`github__*`); empty: every tool. */
  tools: z.array(z.string()),
  /** Per subject (per key for keys on the plan); null: the workspace's default, if any. */
  rpm: z.number().int().nullable(),
  tpm: z.number().int().nullable(),
  concurrency: z.number().int().nullable(),
  /** USD decimal strings, per subject (per key) per UTC day and month; null: no cap. */
  daily_cap: z.string().nullable(),
  monthly_cap: z.string().nullable(),
  max_ttl_seconds: z.number().int(),
  /** Where the plan's callers are (a country code); null: not said. */
  region: z.string().nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type PlanView = z.infer<typeof ZPlanView>;

type Decimalish = { toString(): string };
export type PlanRow = {
  id: string;
  workspaceId: string;
  name: string;
  models: string[];
  tools: string[];
  rpm: number | null;
  tpm: number | null;
  concurrency: number | null;
  dailyCap: Decimalish | null;
  monthlyCap: Decimalish | null;
  maxTtlSeconds: number;
  region: string | null;
  createdAt: Date;
  updatedAt: Date;
};

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

export function toPlanView(row: PlanRow): PlanView {
  return {
    object: "plan",
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    models: row.models,
    tools: row.tools,
    rpm: row.rpm,
    tpm: row.tpm,
    concurrency: row.concurrency,
    daily_cap: row.dailyCap === null ? null : formatMoney(row.dailyCap),
    monthly_cap: row.monthlyCap === null ? null : formatMoney(row.monthlyCap),
    max_ttl_seconds: row.maxTtlSeconds,
    region: row.region,
    created_at: unix(row.createdAt),
    updated_at: unix(row.updatedAt),
  };
}
