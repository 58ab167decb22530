// Captured bodies in PostgreSQL: gzip-compressed from 1 KB (on the thread pool, off the event loop,
// four at a time; a shorter body is kept as it is) and written with their log rows' batch, one
// statement per batch; read back one call at a time, for the workspace that owns it only.
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { z } from "zod";
import { db } from "../../infra/db/client";
import { behindQueryable } from "../../infra/db/write-pool";
import { pgArray } from "../../infra/db/pg-array";
import { storedText } from "../../infra/storage/stored-text";
import type { RequestLogRow } from "../log-row";

const gzipAsync = promisify(gzip);

const INSERT_BODIES = `
  INSERT INTO "RequestLogBody" ("id", "createdAt", "workspaceId", "request", "response", "requestBytes", "responseBytes", "truncated")
  SELECT i.id, (i.at::timestamptz AT TIME ZONE 'UTC'), i.ws, decode(i.req, 'base64'), decode(i.res, 'base64'), i.req_bytes, i.res_bytes, i.truncated
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::bool[])
    AS i(id, at, ws, req, res, req_bytes, res_bytes, truncated)
  ON CONFLICT DO NOTHING`;

/**
 * Bodies shorter than this are kept as they are: gzip saves little on them, and every gzip call
 * sets up about 300 KB of zlib state (a batch of 1,000 rows compressed at once held ~500 MB).
 */
const COMPRESS_FROM = 1024;
/** Bodies compressed at once: each holds its zlib state until done (the thread pool runs four at a time anyway). */
const COMPRESSING = 4;

async function packed(text: string | null): Promise<string | null> {
  if (text === null) return null;
  const bytes = Buffer.from(text);
  return (bytes.length < COMPRESS_FROM ? bytes : await gzipAsync(bytes)).toString("base64");
}

/** `work` on every item, at most `limit` at a time, results in order. */
async function inTurn<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/** Writes the bodies of the rows that carry some (a replayed batch writes none twice). */
export async function writeBodies(rows: RequestLogRow[]): Promise<void> {
  const captured = rows.filter((r) => r.body && r.workspaceId);
  if (!captured.length) return;
  const both = await inTurn(captured, COMPRESSING, async (r) => [await packed(r.body!.request), await packed(r.body!.response)] as const);
  const requests = both.map((b) => b[0]);
  const responses = both.map((b) => b[1]);
  await behindQueryable.$queryRawUnsafe(
    INSERT_BODIES,
    pgArray(captured.map((r) => r.id)),
    pgArray(captured.map((r) => r.createdAt)),
    pgArray(captured.map((r) => r.workspaceId)),
    pgArray(requests),
    pgArray(responses),
    pgArray(captured.map((r) => r.body!.requestBytes)),
    pgArray(captured.map((r) => r.body!.responseBytes)),
    pgArray(captured.map((r) => r.body!.truncated)),
  );
}

export const ZLogBody = z.object({
  request_id: z.string(),
  /** The JSON text kept (cut at the workspace's cap when `truncated`); null: none. */
  request: z.string().nullable(),
  response: z.string().nullable(),
  /** The texts' sizes before they were cut. */
  request_bytes: z.number().int(),
  response_bytes: z.number().int(),
  truncated: z.boolean(),
});
export type LogBody = z.infer<typeof ZLogBody>;

const unpacked = async (bytes: Uint8Array | null) => (bytes ? await storedText(bytes) : null);

/** A captured call's bodies, or null when the workspace has none for it. */
export async function logBody(workspaceId: string, requestId: string, createdAt: Date): Promise<LogBody | null> {
  const rows = await db.$queryRaw<{ request: Uint8Array | null; response: Uint8Array | null; requestBytes: number; responseBytes: number; truncated: boolean }[]>`
    SELECT "request", "response", "requestBytes", "responseBytes", "truncated" FROM "RequestLogBody"
    WHERE "createdAt" = ${createdAt.toISOString()}::timestamptz AT TIME ZONE 'UTC' AND "id" = ${requestId} AND "workspaceId" = ${workspaceId}`;
  const row = rows[0];
  if (!row) return null;
  return {
    request_id: requestId,
    request: await unpacked(row.request),
    response: await unpacked(row.response),
    request_bytes: row.requestBytes,
    response_bytes: row.responseBytes,
    truncated: row.truncated,
  };
}
