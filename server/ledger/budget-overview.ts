// What keys and end-user subjects of a workspace have spent today and this month (UTC), read from
// their spend counters, against the daily and monthly caps of their plan: a key's plan, or the
// plan of a subject's most recent alive session. Amounts are exact USD decimal strings.
import { z } from "zod";
import { Prisma } from "../generated/prisma/client";
import { db } from "../infra/db/client";
import { formatMoney, money } from "../kernel/money";
import { dayPeriod, monthPeriod } from "../kernel/spend-counters";
import { utcTimestamp } from "./usage/usage-filter";

/** Subjects listed at most (those that spent most this month first); `subjectsTruncated` says when there were more. */
export const MAX_BUDGET_SUBJECTS = 200;

export const ZBudgetFigure = z.object({
  /** The plan's cap for the period; null: no cap. */
  cap: z.string().nullable(),
  spent: z.string(),
  /** max(cap - spent, 0); null without a cap. */
  left: z.string().nullable(),
});
export type BudgetFigure = z.infer<typeof ZBudgetFigure>;

export const ZBudgetOverview = z.object({
  /** The UTC day (YYYY-MM-DD) and month (YYYY-MM) the figures are for. */
  day: z.string(),
  month: z.string(),
  /** Unrevoked keys on a plan with a daily or monthly cap. */
  keys: z.array(z.object({ keyId: z.string(), name: z.string(), planId: z.string(), daily: ZBudgetFigure, monthly: ZBudgetFigure })),
  /** Subjects that spent this month or have an alive session; planId null when none is alive. */
  subjects: z.array(z.object({ subject: z.string(), planId: z.string().nullable(), daily: ZBudgetFigure, monthly: ZBudgetFigure })),
  subjectsTruncated: z.boolean(),
});
export type BudgetOverview = z.infer<typeof ZBudgetOverview>;

type Row = { dailyCap: string | null; monthlyCap: string | null; daySpent: string; monthSpent: string };

export function budgetFigure(cap: string | null, spent: string): BudgetFigure {
  const s = money(spent);
  if (cap === null) return { cap: null, spent: formatMoney(s), left: null };
  const left = money(cap).minus(s);
  return { cap: formatMoney(cap), spent: formatMoney(s), left: formatMoney(left.isNegative() ? money(0) : left) };
}

const figures = (r: Row) => ({ daily: budgetFigure(r.dailyCap, r.daySpent), monthly: budgetFigure(r.monthlyCap, r.monthSpent) });

function keyRows(workspaceId: string, daySuffix: string, monthSuffix: string) {
  return db.$queryRaw<(Row & { keyId: string; name: string; planId: string })[]>`
    SELECT k."id" AS "keyId", k."name", k."planId", p."dailyCap"::text AS "dailyCap", p."monthlyCap"::text AS "monthlyCap",
      COALESCE(d."spent", 0)::text AS "daySpent", COALESCE(m."spent", 0)::text AS "monthSpent"
    FROM "ApiKey" k
      JOIN "Plan" p ON p."id" = k."planId" AND p."workspaceId" = k."workspaceId"
      LEFT JOIN "SpendCounter" d ON d."workspaceId" = k."workspaceId" AND d."counter" = 'key:' || k."id" || ${daySuffix}
      LEFT JOIN "SpendCounter" m ON m."workspaceId" = k."workspaceId" AND m."counter" = 'key:' || k."id" || ${monthSuffix}
    WHERE k."workspaceId" = ${workspaceId} AND k."revokedAt" IS NULL
      AND (p."dailyCap" IS NOT NULL OR p."monthlyCap" IS NOT NULL)
    ORDER BY k."createdAt", k."id"`;
}

function subjectRows(workspaceId: string, daySuffix: string, monthSuffix: string, now: Date) {
  // The subject is what lies between "subject:" and the period suffix (it may itself hold "|").
  return db.$queryRaw<(Row & { subject: string; planId: string | null })[]>`
    WITH alive AS (
      SELECT DISTINCT ON (s."subject") s."subject", s."planId"
      FROM "PlanSession" s
      WHERE s."workspaceId" = ${workspaceId} AND s."revokedAt" IS NULL AND s."expiresAt" > ${utcTimestamp(now)}
      ORDER BY s."subject", s."createdAt" DESC, s."id" DESC
    ), month AS (
      SELECT substr(c."counter", 9, length(c."counter") - 8 - length(${monthSuffix})) AS "subject", c."spent"
      FROM "SpendCounter" c
      WHERE c."workspaceId" = ${workspaceId} AND c."counter" LIKE 'subject:%' AND right(c."counter", length(${monthSuffix})) = ${monthSuffix}
    ), listed AS (
      SELECT COALESCE(a."subject", m."subject") AS "subject", a."planId", COALESCE(m."spent", 0) AS "monthSpent"
      FROM alive a FULL JOIN month m ON m."subject" = a."subject"
    )
    SELECT l."subject", l."planId", p."dailyCap"::text AS "dailyCap", p."monthlyCap"::text AS "monthlyCap",
      COALESCE(d."spent", 0)::text AS "daySpent", l."monthSpent"::text AS "monthSpent"
    FROM listed l
      LEFT JOIN "Plan" p ON p."id" = l."planId"
      LEFT JOIN "SpendCounter" d ON d."workspaceId" = ${workspaceId} AND d."counter" = 'subject:' || l."subject" || ${daySuffix}
    ORDER BY l."monthSpent" DESC, l."subject"
    LIMIT ${Prisma.raw(String(MAX_BUDGET_SUBJECTS + 1))}`;
}

export async function budgetOverview(workspaceId: string, now = new Date()): Promise<BudgetOverview> {
  const daySuffix = `|${dayPeriod(now)}`;
  const monthSuffix = `|${monthPeriod(now)}`;
  const [keys, subjects] = await Promise.all([keyRows(workspaceId, daySuffix, monthSuffix), subjectRows(workspaceId, daySuffix, monthSuffix, now)]);
  return {
    day: now.toISOString().slice(0, 10),
    month: now.toISOString().slice(0, 7),
    keys: keys.map((r) => ({ keyId: r.keyId, name: r.name, planId: r.planId, ...figures(r) })),
    subjects: subjects.slice(0, MAX_BUDGET_SUBJECTS).map((r) => ({ subject: r.subject, planId: r.planId, ...figures(r) })),
    subjectsTruncated: subjects.length > MAX_BUDGET_SUBJECTS,
  };
}
