// The filter every usage view shares: a workspace (from the caller, never the input), an optional
// key, plan and end-user subject, and a range of whole UTC days. The SQL fragment always scopes by
// the workspace first, so a key or plan id of another workspace simply matches nothing.
import { z } from "zod";
import { errors } from "../../kernel/errors";
import { Prisma } from "../../generated/prisma/client";

const DAY_MS = 86_400_000;
export const DEFAULT_DAYS = 30;
export const MAX_DAYS = 366;

const ZDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date such as 2025-01-31");

export const ZUsageFilter = z.object({
  apiKeyId: z.string().min(1).optional(),
  /** Only calls made under this plan (a session token's, or a key's). */
  planId: z.string().min(1).max(200).optional(),
  /** Only calls of this end user (the subject of a session token). */
  subject: z.string().min(1).max(256).optional(),
  /** Only calls with this tag: `key=value` (or `key` for any value). */
  tag: z.string().min(1).max(200).regex(/^[A-Za-z0-9_.:-]{1,64}(=.*)?$/, "must be key=value").optional(),
  /** First UTC day included (YYYY-MM-DD); defaults to 29 days before `to`. */
  from: ZDay.optional(),
  /** Last UTC day included (YYYY-MM-DD); defaults to today. */
  to: ZDay.optional(),
});
export type UsageFilter = z.infer<typeof ZUsageFilter>;

export type UsageRange = { fromDay: string; toDay: string; start: Date; end: Date; days: number };

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

function parseDay(value: string, param: string): Date {
  const d = new Date(`${value}T00:00:00.000Z`);
  if (Number.isNaN(d.getTime()) || dayOf(d) !== value) throw errors.invalidRequest(`${param} is not a valid date`, param);
  return d;
}

/** The UTC days a filter covers: [start, end) with end the midnight after `to`. */
export function resolveRange(filter: UsageFilter, now = new Date()): UsageRange {
  const to = filter.to ? parseDay(filter.to, "to") : parseDay(dayOf(now), "to");
  const from = filter.from ? parseDay(filter.from, "from") : new Date(to.getTime() - (DEFAULT_DAYS - 1) * DAY_MS);
  const days = Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
  if (days < 1) throw errors.invalidRequest("from must not be after to", "from");
  if (days > MAX_DAYS) throw errors.invalidRequest(`The date range may span at most ${MAX_DAYS} days`, "from");
  return { fromDay: dayOf(from), toDay: dayOf(to), start: from, end: new Date(to.getTime() + DAY_MS), days };
}

/** Timestamps are stored as UTC in `timestamp` columns: compare with UTC wall-clock literals, whatever the session's time zone. */
export const utcTimestamp = (d: Date) => Prisma.sql`${d.toISOString().replace("Z", "")}::timestamp`;

/** WHERE conditions on "UsageEvent" aliased `e`. */
export function usageWhere(workspaceId: string, filter: UsageFilter, range: UsageRange): Prisma.Sql {
  return Prisma.sql`e."workspaceId" = ${workspaceId}
    AND e."createdAt" >= ${utcTimestamp(range.start)} AND e."createdAt" < ${utcTimestamp(range.end)}
    ${filter.apiKeyId ? Prisma.sql`AND e."apiKeyId" = ${filter.apiKeyId}` : Prisma.empty}
    ${filter.planId ? Prisma.sql`AND e."planId" = ${filter.planId}` : Prisma.empty}
    ${filter.subject ? Prisma.sql`AND e."subject" = ${filter.subject}` : Prisma.empty}
    ${filter.tag ? tagCondition(filter.tag) : Prisma.empty}`;
}

/** A `key=value` tag filter on the usage event's tags (containment, served by their GIN index), or `key` for any value. */
function tagCondition(tag: string): Prisma.Sql {
  const at = tag.indexOf("=");
  if (at < 0) return Prisma.sql`AND e."tags" ? ${tag}`;
  return Prisma.sql`AND e."tags" @> ${JSON.stringify({ [tag.slice(0, at)]: tag.slice(at + 1) })}::jsonb`;
}
