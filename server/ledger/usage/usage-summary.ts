// Usage per UTC day and per model. Costs are summed by PostgreSQL in numeric and travel as
// decimal strings, so the totals are exactly the sum of the usage events (never floats).
//
// Where the figures come from: the daily rollups (UsageDaily per day, model, key and plan;
// UsageDailyTag per day, tag and model), which the ledger's statement that inserts the events
// keeps (rollup-sql.ts), whenever they can answer the filter (no subject filter; a tag filter
// alone; the group by a tag key without other filters): tens of rows per day instead of every
// event. Otherwise the events themselves, in one statement (GROUPING SETS) rather than one per
// figure.
import { z } from "zod";
import { db } from "../../infra/db/client";
import { Prisma } from "../../generated/prisma/client";
import { formatMoney, money } from "../../kernel/money";
import { resolveRange, usageWhere, type UsageFilter, type UsageRange } from "./usage-filter";

const ZFigures = z.object({
  cost: z.string(),
  requests: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  /** Calls answered by the response cache, and what they saved (USD) beyond their cache price. */
  cacheHits: z.number(),
  cacheSaved: z.string(),
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
type Figures = z.infer<typeof ZFigures>;

type FigureRow = { cost: string; requests: number; inputTokens: number; outputTokens: number; cacheHits: number; cacheSaved: string };
/** One row of a GROUPING SETS statement: which set it belongs to says which of `day`, `modelId`, `value` it is. */
type SetRow = FigureRow & { set: number; day: string | null; modelId: string | null; value: string | null };

const figures = (r: FigureRow): Figures => ({
  cost: formatMoney(r.cost),
  requests: Number(r.requests),
  inputTokens: Number(r.inputTokens),
  outputTokens: Number(r.outputTokens),
  cacheHits: Number(r.cacheHits),
  cacheSaved: formatMoney(r.cacheSaved),
});
const ZERO: FigureRow = { cost: "0", requests: 0, inputTokens: 0, outputTokens: 0, cacheHits: 0, cacheSaved: "0" };

// Token sums can pass 2^31 (int); float8 holds whole numbers exactly up to 2^53.
const EVENT_FIGURES = Prisma.sql`
  COALESCE(SUM(e."cost"), 0)::text AS cost, COUNT(e."id")::float8 AS requests,
  COALESCE(SUM(e."inputTokens"), 0)::float8 AS "inputTokens", COALESCE(SUM(e."outputTokens"), 0)::float8 AS "outputTokens",
  COUNT(e."id") FILTER (WHERE e."cacheHit")::float8 AS "cacheHits", COALESCE(SUM(e."cacheSaved"), 0)::text AS "cacheSaved"`;

const ROLLUP_FIGURES = Prisma.sql`
  COALESCE(SUM(r."cost"), 0)::text AS cost, COALESCE(SUM(r."requests"), 0)::float8 AS requests,
  COALESCE(SUM(r."inputTokens"), 0)::float8 AS "inputTokens", COALESCE(SUM(r."outputTokens"), 0)::float8 AS "outputTokens",
  COALESCE(SUM(r."cacheHits"), 0)::float8 AS "cacheHits", COALESCE(SUM(r."cacheSaved"), 0)::text AS "cacheSaved"`;

/** `key=value`, or `key` for any value. */
function splitTag(tag: string): { key: string; value: string | null } {
  const at = tag.indexOf("=");
  return at < 0 ? { key: tag, value: null } : { key: tag.slice(0, at), value: tag.slice(at + 1) };
}

/** The rollup rows a filter reads (aliased `r`), or null when the rollups cannot answer it (a subject; a tag with a key or plan). */
function rollupSource(workspaceId: string, filter: UsageFilter, range: UsageRange): Prisma.Sql | null {
  if (filter.subject) return null;
  const days = Prisma.sql`r."workspaceId" = ${workspaceId} AND r."day" >= ${range.fromDay}::date AND r."day" <= ${range.toDay}::date`;
  if (filter.tag) {
    if (filter.apiKeyId || filter.planId) return null;
    const { key, value } = splitTag(filter.tag);
    return Prisma.sql`"UsageDailyTag" r WHERE ${days} AND r."tagKey" = ${key} ${value === null ? Prisma.empty : Prisma.sql`AND r."tagValue" = ${value}`}`;
  }
  return Prisma.sql`"UsageDaily" r WHERE ${days}
    ${filter.apiKeyId ? Prisma.sql`AND r."apiKeyId" = ${filter.apiKeyId}` : Prisma.empty}
    ${filter.planId ? Prisma.sql`AND r."planId" = ${filter.planId}` : Prisma.empty}`;
}

// GROUPING() gives each row a bit per grouped column, set when the column is NOT in the row's set:
// with (day, model), a day's row is 1, a model's 2, the total 3; with (day, model, tag value), a
// day's row is 3, a model's 5, a tag value's 6, the total 7.
const SETS = { day: 1, model: 2, total: 3 } as const;
const TAG_SETS = { day: 3, model: 5, tag: 6, total: 7 } as const;

/** Days, models and totals from the rollups, in one statement. */
function fromRollups(source: Prisma.Sql) {
  return db.$queryRaw<SetRow[]>`
    SELECT GROUPING(r."day", r."modelId")::int AS set, to_char(r."day", 'YYYY-MM-DD') AS day, r."modelId", NULL::text AS value, ${ROLLUP_FIGURES}
    FROM ${source}
    GROUP BY GROUPING SETS ((r."day"), (r."modelId"), ())`;
}

/** Days, models, totals (and the values of a tag key) from the events, in one statement. */
function fromEvents(where: Prisma.Sql, groupByTag?: string) {
  const day = Prisma.sql`e."createdAt"::date`;
  if (!groupByTag) {
    return db.$queryRaw<SetRow[]>`
      SELECT GROUPING(${day}, e."modelId")::int AS set, to_char(${day}, 'YYYY-MM-DD') AS day, e."modelId", NULL::text AS value, ${EVENT_FIGURES}
      FROM "UsageEvent" e WHERE ${where}
      GROUP BY GROUPING SETS ((${day}), (e."modelId"), ())`;
  }
  // The tag's value once per event (a parameter repeated would be another expression to GROUPING).
  return db.$queryRaw<SetRow[]>`
    SELECT GROUPING(${day}, e."modelId", e."tagValue")::int AS set, to_char(${day}, 'YYYY-MM-DD') AS day, e."modelId", e."tagValue" AS value, ${EVENT_FIGURES}
    FROM (SELECT e.*, e."tags" ->> ${groupByTag} AS "tagValue" FROM "UsageEvent" e WHERE ${where}) e
    GROUP BY GROUPING SETS ((${day}), (e."modelId"), (e."tagValue"), ())`;
}

/** The group by a tag key from the tag rollup, with the calls without that key (totals minus the tag's groups) as `null`. */
async function tagGroupsFromRollup(workspaceId: string, range: UsageRange, key: string, totals: FigureRow): Promise<(FigureRow & { value: string | null })[]> {
  const rows = await db.$queryRaw<(FigureRow & { value: string })[]>`
    SELECT r."tagValue" AS value, ${ROLLUP_FIGURES}
    FROM "UsageDailyTag" r
    WHERE r."workspaceId" = ${workspaceId} AND r."day" >= ${range.fromDay}::date AND r."day" <= ${range.toDay}::date AND r."tagKey" = ${key}
    GROUP BY r."tagValue"`;
  const rest: FigureRow = { ...totals };
  for (const r of rows) {
    rest.cost = money(rest.cost).minus(r.cost).toString();
    rest.requests -= Number(r.requests);
    rest.inputTokens -= Number(r.inputTokens);
    rest.outputTokens -= Number(r.outputTokens);
    rest.cacheHits -= Number(r.cacheHits);
    rest.cacheSaved = money(rest.cacheSaved).minus(r.cacheSaved).toString();
  }
  return rest.requests > 0 ? [...rows, { ...rest, value: null }] : rows;
}

/** Most expensive first, then by name; calls without the tag (null) after the named values of the same cost. */
const byCost = <T extends FigureRow>(name: (r: T) => string | null) => (a: T, b: T) => {
  const c = money(b.cost).comparedTo(a.cost);
  if (c) return c;
  const [x, y] = [name(a), name(b)];
  if (x === y) return 0;
  if (x === null) return 1;
  if (y === null) return -1;
  return x < y ? -1 : 1;
};

export async function usageSummary(workspaceId: string, filter: UsageFilter, groupByTag?: string): Promise<UsageSummary> {
  const range = resolveRange(filter);
  // The tag rollup groups by one tag key over all of the workspace's calls: with any other filter, the events answer.
  const source = !groupByTag || !(filter.tag || filter.apiKeyId || filter.planId) ? rollupSource(workspaceId, filter, range) : null;
  const rows = source ? await fromRollups(source) : await fromEvents(usageWhere(workspaceId, filter, range), groupByTag);
  const sets = source || !groupByTag ? SETS : TAG_SETS;
  const byDay = new Map(rows.filter((r) => r.set === sets.day).map((r) => [r.day!, r]));
  const totals = rows.find((r) => r.set === sets.total) ?? ZERO;
  const models = rows.filter((r) => r.set === sets.model).sort(byCost((r) => r.modelId));
  let groups: (FigureRow & { value: string | null })[] | null = null;
  if (groupByTag) {
    groups = source ? await tagGroupsFromRollup(workspaceId, range, groupByTag, totals) : rows.filter((r) => r.set === TAG_SETS.tag);
    groups.sort(byCost((r) => r.value));
  }
  const days: UsageSummary["days"] = [];
  for (let t = range.start.getTime(); t < range.end.getTime(); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    days.push({ day, ...figures(byDay.get(day) ?? ZERO) });
  }
  return {
    from: range.fromDay,
    to: range.toDay,
    totals: figures(totals),
    days,
    models: models.map((r) => ({ modelId: r.modelId!, ...figures(r) })),
    ...(groups && { tagGroups: groups.map((r) => ({ value: r.value, ...figures(r) })) }),
  };
}
