// A workspace's request log, newest first, one page at a time (keyset: the last row's time and
// id), filtered by time, status class, error code, model, key, plan, subject and tag. Each filter
// is an indexed column of the workspace's rows (or the tags' containment), so a page costs the
// same with a million rows as with a hundred.
import { z } from "zod";
import { Prisma } from "../generated/prisma/client";
import { db } from "../infra/db/client";
import { errors } from "../kernel/errors";
import type { RequestLogRow } from "./log-row";
import { parseTagFilter } from "./tags";

export const ZLogFilter = z.object({
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
  status: z.enum(["2xx", "3xx", "4xx", "5xx"]).optional(),
  code: z.string().min(1).max(100).optional(),
  model: z.string().min(1).max(300).optional(),
  keyId: z.string().min(1).max(100).optional(),
  planId: z.string().min(1).max(100).optional(),
  subject: z.string().min(1).max(300).optional(),
  /** `key=value` */
  tag: z.string().min(1).max(200).optional(),
  limit: z.number().int().min(1).max(500).default(50),
  cursor: z.string().optional(),
});
export type LogFilter = z.input<typeof ZLogFilter>;

export const ZLogEntry = z.object({
  request_id: z.string(),
  created_at: z.string(),
  method: z.string(),
  route: z.string(),
  model: z.string().nullable(),
  node_id: z.string().nullable(),
  status: z.number().int(),
  error_code: z.string().nullable(),
  credential: z.object({
    kind: z.string(),
    key_id: z.string().nullable(),
    plan_id: z.string().nullable(),
    subject: z.string().nullable(),
    payer: z.string().nullable(),
  }),
  duration_ms: z.number(),
  upstream_ms: z.number().nullable(),
  first_byte_ms: z.number().nullable(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost: z.string().nullable(),
  usage_estimated: z.boolean(),
  cache: z.string().nullable(),
  tags: z.record(z.string(), z.string()),
  client_ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  /** Its request and answer were kept (logs.body reads them). */
  captured: z.boolean(),
});
export type LogEntry = z.infer<typeof ZLogEntry>;

/** One page, newest first; `next_cursor` opens the next (null on the last page). */
export const ZLogPage = z.object({ logs: z.array(ZLogEntry), next_cursor: z.string().nullable() });

/** A row as read: its time as ISO text. */
type Row = Omit<RequestLogRow, "createdAt" | "workspaceId" | "body"> & { time: string; captured: boolean };

const encodeCursor = (r: { time: string; id: string }) => Buffer.from(`${r.time}|${r.id}`).toString("base64url");

function decodeCursor(cursor: string): { time: string; id: string } {
  const [time, id] = Buffer.from(cursor, "base64url").toString().split("|");
  if (!id || !time || Number.isNaN(Date.parse(time))) throw errors.invalidRequest("cursor is not valid", "cursor");
  return { time, id };
}

const STATUS_RANGE = { "2xx": [200, 300], "3xx": [300, 400], "4xx": [400, 500], "5xx": [500, 600] } as const;

function where(workspaceId: string, f: z.output<typeof ZLogFilter>): Prisma.Sql {
  const parts = [Prisma.sql`"workspaceId" = ${workspaceId}`];
  if (f.from) parts.push(Prisma.sql`"createdAt" >= ${f.from.toISOString()}::timestamptz AT TIME ZONE 'UTC'`);
  if (f.to) parts.push(Prisma.sql`"createdAt" < ${f.to.toISOString()}::timestamptz AT TIME ZONE 'UTC'`);
  if (f.status) parts.push(Prisma.sql`"status" >= ${STATUS_RANGE[f.status][0]} AND "status" < ${STATUS_RANGE[f.status][1]}`);
  if (f.code) parts.push(Prisma.sql`"errorCode" = ${f.code}`);
  if (f.model) parts.push(Prisma.sql`"model" = ${f.model}`);
  if (f.keyId) parts.push(Prisma.sql`"apiKeyId" = ${f.keyId}`);
  if (f.planId) parts.push(Prisma.sql`"planId" = ${f.planId}`);
  if (f.subject) parts.push(Prisma.sql`"subject" = ${f.subject}`);
  if (f.tag) {
    const { key, value } = parseTagFilter(f.tag);
    parts.push(value ? Prisma.sql`"tags" @> ${JSON.stringify({ [key]: value })}::jsonb` : Prisma.sql`"tags" ? ${key}`);
  }
  if (f.cursor) {
    const after = decodeCursor(f.cursor);
    parts.push(Prisma.sql`("createdAt", "id") < (${after.time}::timestamptz AT TIME ZONE 'UTC', ${after.id})`);
  }
  return Prisma.join(parts, " AND ");
}

function toEntry(r: Row): LogEntry {
  return {
    request_id: r.id,
    created_at: r.time,
    method: r.method,
    route: r.route,
    model: r.model,
    node_id: r.nodeId,
    status: r.status,
    error_code: r.errorCode,
    credential: { kind: r.credential, key_id: r.apiKeyId, plan_id: r.planId, subject: r.subject, payer: r.payer },
    duration_ms: r.durationMs,
    upstream_ms: r.upstreamMs,
    first_byte_ms: r.firstByteMs,
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    cost: r.cost,
    usage_estimated: r.usageEstimated,
    cache: r.cache,
    tags: r.tags ?? {},
    client_ip: r.clientIp,
    user_agent: r.userAgent,
    captured: r.captured,
  };
}

export async function listLogs(workspaceId: string, filter: LogFilter): Promise<z.infer<typeof ZLogPage>> {
  const f = ZLogFilter.parse(filter);
  const rows = await db.$queryRaw<Row[]>`
    SELECT "id", to_char("createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS time, "method", "route", "model", "nodeId", "credential",
      "apiKeyId", "planId", "subject", "payer", "status", "errorCode", "durationMs", "upstreamMs", "firstByteMs", "inputTokens",
      "outputTokens", trim_scale("cost")::text AS cost, "usageEstimated", "cache", "tags", "clientIp", "userAgent", "captured"
    FROM "RequestLog"
    WHERE ${where(workspaceId, f)}
    ORDER BY "createdAt" DESC, "id" DESC
    LIMIT ${f.limit + 1}`;
  const page = rows.slice(0, f.limit);
  return { logs: page.map(toEntry), next_cursor: rows.length > f.limit ? encodeCursor(page.at(-1)!) : null };
}
