// The recent requests of a workspace: newest first, paged by a keyset cursor (time, id) so a page
// never skips or repeats a request while new ones arrive. Only billed calls write usage events,
// so every row is a call that succeeded.
import { z } from "zod";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import { Prisma } from "../../generated/prisma/client";
import { formatMoney } from "../../kernel/money";
import { resolveRange, usageWhere, utcTimestamp, ZUsageFilter, type UsageFilter } from "./usage-filter";

export const ZUsageEventsInput = ZUsageFilter.extend({
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(100).default(25),
});
export type UsageEventsInput = z.input<typeof ZUsageEventsInput>;

export const ZUsageEventRow = z.object({
  id: z.string(),
  time: z.string(),
  endpoint: z.string(),
  modelId: z.string(),
  key: z.object({ id: z.string(), name: z.string().nullable(), prefix: z.string().nullable() }).nullable(),
  /** The plan the call was made under (name null once the plan is deleted); null: none. */
  plan: z.object({ id: z.string(), name: z.string().nullable() }).nullable(),
  /** The end user of a call made with a session token; null: none. */
  subject: z.string().nullable(),
  inputTokens: z.number(),
  cachedTokens: z.number(),
  /** Input tokens written to the provider's prompt cache. */
  cacheWriteTokens: z.number(),
  outputTokens: z.number(),
  reasoningTokens: z.number(),
  /** The node reported no usage: the tokens are the gateway's own count. */
  usageEstimated: z.boolean(),
  /** The call's tags. */
  tags: z.record(z.string(), z.string()).nullable(),
  characters: z.number(),
  audioSeconds: z.string(),
  images: z.number(),
  videoSeconds: z.string(),
  /** What was billed, in words: "12 in / 30 out tokens", "2 images", "3.5 s audio". */
  units: z.string(),
  cost: z.string(),
  /** Answered by the response cache: `cost` is the cache price, `cacheSaved` the rest of what the original call cost. */
  cacheHit: z.boolean(),
  cacheSaved: z.string(),
  status: z.literal("succeeded"),
  latencyMs: z.number().nullable(),
});
export type UsageEventRow = z.infer<typeof ZUsageEventRow>;

export const ZUsageEventsPage = z.object({ events: z.array(ZUsageEventRow), nextCursor: z.string().nullable() });

type Raw = Omit<UsageEventRow, "key" | "plan" | "units" | "status"> & {
  apiKeyId: string | null;
  keyName: string | null;
  keyPrefix: string | null;
  planId: string | null;
  planName: string | null;
};

const plural = (n: number, one: string) => `${n.toLocaleString("en-US")} ${one}${n === 1 ? "" : "s"}`;

type Units = Pick<Raw, "inputTokens" | "cachedTokens" | "outputTokens" | "reasoningTokens" | "characters" | "audioSeconds" | "images" | "videoSeconds"> &
  Partial<Pick<Raw, "cacheWriteTokens" | "usageEstimated">>;

export function describeUnits(r: Units): string {
  const parts: string[] = [];
  if (r.inputTokens || r.outputTokens) {
    let tokens = `${r.inputTokens.toLocaleString("en-US")} in / ${r.outputTokens.toLocaleString("en-US")} out tokens`;
    if (r.cachedTokens) tokens += `, ${r.cachedTokens.toLocaleString("en-US")} cached`;
    if (r.cacheWriteTokens) tokens += `, ${r.cacheWriteTokens.toLocaleString("en-US")} written to cache`;
    if (r.reasoningTokens) tokens += `, ${r.reasoningTokens.toLocaleString("en-US")} reasoning`;
    if (r.usageEstimated) tokens += " (estimated)";
    parts.push(tokens);
  }
  if (r.characters) parts.push(plural(r.characters, "character"));
  if (r.audioSeconds !== "0") parts.push(`${r.audioSeconds} s audio`);
  if (r.images) parts.push(plural(r.images, "image"));
  if (r.videoSeconds !== "0") parts.push(`${r.videoSeconds} s video`);
  return parts.join("; ") || "no units";
}

export const encodeCursor = (r: { time: string; id: string }) => Buffer.from(`${r.time}|${r.id}`).toString("base64url");

function decodeCursor(cursor: string): { time: Date; id: string } {
  const [time, id] = Buffer.from(cursor, "base64url").toString().split("|");
  const at = new Date(time ?? "");
  if (!id || Number.isNaN(at.getTime())) throw errors.invalidRequest("cursor is not valid", "cursor");
  return { time: at, id };
}

/** One page of raw rows; used by the table and, page after page, by the CSV export. */
export async function usageEventRows(workspaceId: string, filter: UsageFilter, limit: number, cursor?: string): Promise<Raw[]> {
  const range = resolveRange(filter);
  const after = cursor ? decodeCursor(cursor) : null;
  return db.$queryRaw<Raw[]>`
    SELECT e."id", to_char(e."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS time, e."endpoint", e."modelId",
      e."apiKeyId", k."name" AS "keyName", k."prefix" AS "keyPrefix",
      e."inputTokens", e."cachedTokens", e."cacheWriteTokens", e."outputTokens", e."reasoningTokens", e."usageEstimated", e."tags", e."characters",
      trim_scale(e."audioSeconds")::text AS "audioSeconds", e."images", trim_scale(e."videoSeconds")::text AS "videoSeconds",
      e."cost"::text AS cost, e."latencyMs", e."planId", p."name" AS "planName", e."subject", e."cacheHit", e."cacheSaved"::text AS "cacheSaved"
    FROM "UsageEvent" e
      LEFT JOIN "ApiKey" k ON k."id" = e."apiKeyId" AND k."workspaceId" = e."workspaceId"
      LEFT JOIN "Plan" p ON p."id" = e."planId" AND p."workspaceId" = e."workspaceId"
    WHERE ${usageWhere(workspaceId, filter, range)}
      ${after ? Prisma.sql`AND (e."createdAt", e."id") < (${utcTimestamp(after.time)}, ${after.id})` : Prisma.empty}
    ORDER BY e."createdAt" DESC, e."id" DESC
    LIMIT ${limit}`;
}

export function toUsageEventRow(r: Raw): UsageEventRow {
  const { apiKeyId, keyName, keyPrefix, planId, planName, ...rest } = r;
  return {
    ...rest,
    key: apiKeyId ? { id: apiKeyId, name: keyName, prefix: keyPrefix } : null,
    plan: planId ? { id: planId, name: planName } : null,
    units: describeUnits(r),
    cost: formatMoney(r.cost),
    cacheSaved: formatMoney(r.cacheSaved),
    status: "succeeded",
  };
}

export async function usageEvents(workspaceId: string, input: UsageEventsInput): Promise<z.infer<typeof ZUsageEventsPage>> {
  const { cursor, limit, ...filter } = ZUsageEventsInput.parse(input);
  // One row more than asked tells whether there is a next page.
  const rows = await usageEventRows(workspaceId, filter, limit + 1, cursor);
  const page = rows.slice(0, limit);
  return { events: page.map(toUsageEventRow), nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null };
}
