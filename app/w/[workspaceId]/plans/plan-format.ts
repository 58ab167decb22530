// Display formatting of plans: limits, caps and token lifetimes, one short phrase each.
import type { PlanView } from "@/server/identity/plans/plan-view";
import { formatCount, formatUsd } from "../usage/format";

/** Caps and budgets in USD: cents for round amounts, up to 6 decimals for small ones. */
export const formatCap = (amount: string) => formatUsd(amount, 6);

export function describeLimits(p: Pick<PlanView, "rpm" | "tpm" | "concurrency">): string {
  const parts = [
    p.rpm === null ? null : `${formatCount(p.rpm)} rpm`,
    p.tpm === null ? null : `${formatCount(p.tpm)} tpm`,
    p.concurrency === null ? null : `${formatCount(p.concurrency)} concurrent`,
  ].filter(Boolean);
  return parts.length ? parts.join(" · ") : "workspace defaults";
}

export function describeCaps(p: Pick<PlanView, "daily_cap" | "monthly_cap">): string {
  const parts = [p.daily_cap === null ? null : `${formatCap(p.daily_cap)}/day`, p.monthly_cap === null ? null : `${formatCap(p.monthly_cap)}/month`].filter(Boolean);
  return parts.length ? parts.join(" · ") : "no cap";
}

export const LIFETIME_UNITS = [
  { unit: "days", seconds: 86_400 },
  { unit: "hours", seconds: 3_600 },
  { unit: "minutes", seconds: 60 },
  { unit: "seconds", seconds: 1 },
] as const;
export type LifetimeUnit = (typeof LIFETIME_UNITS)[number]["unit"];

/** A lifetime in the largest unit that divides it: 3600 -> { value: 1, unit: "hours" }. */
export function splitLifetime(seconds: number): { value: number; unit: LifetimeUnit } {
  const u = LIFETIME_UNITS.find((x) => seconds % x.seconds === 0) ?? LIFETIME_UNITS[3];
  return { value: seconds / u.seconds, unit: u.unit };
}

export function formatLifetime(seconds: number): string {
  const { value, unit } = splitLifetime(seconds);
  return `${formatCount(value)} ${value === 1 ? unit.slice(0, -1) : unit}`;
}

/** Unix seconds as local date and time. */
export const formatUnix = (seconds: number) => new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
