// Usage per UTC day and per model. Costs are summed by PostgreSQL in numeric and travel as
// decimal strings, so the totals are exactly the sum of the usage events (never floats).
import { z } from "zod";
import { db } from "../../infra/db/client";
import { Prisma } from "../../generated/prisma/client";
import { formatMoney } from "../../kernel/money";
import { resolveRange, usageWhere, utcTimestamp, type UsageFilter } from "./usage-filter";

const ZFigures = z.object({
  cost: z.string(),
  requests: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
});

export const ZUsageSummary = z.object({
  from: z.string(),
  to: z.string(),
  totals: ZFigures,
  /** Every day of the range, oldest first, zeros included (charts need the gaps). */
  days: z.array(ZFigures.extend({ day: z.string() })),
  /** Models used in the range, most expensive first. */
  models: z.array(ZFigures.extend({ modelId: z.string() })),
  /** With `groupByTag`: the figures per value of that tag key (null: calls without it), most expensive first. */
  tagGroups: z.array(ZFigures.extend({ value: z.string().nullable() })).optional(),
});
export type UsageSummary = z.infer<typeof ZUsageSummary>;

type FigureRow = { cost: string; requests: number; inputTokens: number; outputTokens: number };

// Token sums can pass 2^31 (int); float8 holds whole numbers exactly up to 2^53.
const FIGURES = Prisma.sql`
  COALESCE(SUM(e."cost"), 0)::text AS cost,
  COUNT(e."id")::float8 AS requests,
  COALESCE(SUM(e."inputTokens"), 0)::float8 AS "inputTokens",
  COALESCE(SUM(e."outputTokens"), 0)::float8 AS "outputTokens"`;

const figures = (r: FigureRow) => ({
  cost: formatMoney(r.cost),
  requests: Number(r.requests),
  inputTokens: Number(r.inputTokens),
  outputTokens: Number(r.outputTokens),
});

/** The figures per value of one tag key (cost per team, per feature, per customer). */
function tagGroups(where: Prisma.Sql, key: string) {
  return db.$queryRaw<(FigureRow & { value: string | null })[]>`
    SELECT e."tags" ->> ${key} AS value, ${FIGURES}
    FROM "UsageEvent" e WHERE ${where}
    GROUP BY 1 ORDER BY SUM(e."cost") DESC, 1`;
}

export async function usageSummary(workspaceId: string, filter: UsageFilter, groupByTag?: string): Promise<UsageSummary> {
  const range = resolveRange(filter);
  const where = usageWhere(workspaceId, filter, range);
  const [days, models, totals, groups] = await Promise.all([
    db.$queryRaw<(FigureRow & { day: string })[]>`
      SELECT to_char(d.day, 'YYYY-MM-DD') AS day, ${FIGURES}
      FROM generate_series(${utcTimestamp(range.start)}, ${utcTimestamp(range.end)} - interval '1 day', interval '1 day') AS d(day)
      LEFT JOIN "UsageEvent" e ON e."createdAt" >= d.day AND e."createdAt" < d.day + interval '1 day' AND ${where}
      GROUP BY d.day ORDER BY d.day`,
    db.$queryRaw<(FigureRow & { modelId: string })[]>`
      SELECT e."modelId", ${FIGURES}
      FROM "UsageEvent" e WHERE ${where}
      GROUP BY e."modelId" ORDER BY SUM(e."cost") DESC, e."modelId"`,
    db.$queryRaw<FigureRow[]>`SELECT ${FIGURES} FROM "UsageEvent" e WHERE ${where}`,
    groupByTag ? tagGroups(where, groupByTag) : Promise.resolve(null),
  ]);
  return {
    from: range.fromDay,
    to: range.toDay,
    totals: figures(totals[0] ?? { cost: "0", requests: 0, inputTokens: 0, outputTokens: 0 }),
    days: days.map((r) => ({ day: r.day, ...figures(r) })),
    models: models.map((r) => ({ modelId: r.modelId, ...figures(r) })),
    ...(groups && { tagGroups: groups.map((r) => ({ value: r.value, ...figures(r) })) }),
  };
}
