// Names of the spend counters budgets are checked against (the SpendCounter rows of a workspace):
// `<scope>|<period>`, scope `key:<key id>`, `subject:<subject>` or `session:<session id>`, period
// `day:YYYY-MM-DD` or `month:YYYY-MM` (UTC) or `total`.
export type CounterScope = `key:${string}` | `subject:${string}` | `session:${string}`;

export const dayPeriod = (at: Date) => `day:${at.toISOString().slice(0, 10)}`;
export const monthPeriod = (at: Date) => `month:${at.toISOString().slice(0, 7)}`;
export const TOTAL_PERIOD = "total";

export const counterName = (scope: CounterScope, period: string) => `${scope}|${period}`;

/** Seconds until the period that `at` falls in ends (when a daily or monthly cap starts afresh). */
export function secondsToPeriodEnd(period: string, at: Date): number | null {
  if (period.startsWith("day:")) {
    const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
    return Math.ceil((next - at.getTime()) / 1000);
  }
  if (period.startsWith("month:")) {
    const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
    return Math.ceil((next - at.getTime()) / 1000);
  }
  return null;
}
