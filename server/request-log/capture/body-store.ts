// Captured bodies in PostgreSQL: gzip-compressed (on the thread pool, off the event loop) and
// written with their log rows' batch, one statement per batch; read back one call at a time, for
// the workspace that owns it only.
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import { z } from "zod";
import { db } from "../../infra/db/client";
import { writeQueryable } from "../../infra/db/write-pool";
import type { RequestLogRow } from "../log-row";

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

const INSERT_BODIES = `
  INSERT INTO "RequestLogBody" ("id", "createdAt", "workspaceId", "request", "response", "requestBytes", "responseBytes", "truncated")
  SELECT i.id, (i.at::timestamptz AT TIME ZONE 'UTC'), i.ws, decode(i.req, 'base64'), decode(i.res, 'base64'), i.req_bytes, i.res_bytes, i.truncated
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::bool[])
    AS i(id, at, ws, req, res, req_bytes, res_bytes, truncated)
  ON CONFLICT DO NOTHING`;

const packed = async (text: string | null) => (text === null ? null : (await gzipAsync(text)).toString("base64"));

/** Writes the bodies of the rows that carry some (a replayed batch writes none twice). */
export async function writeBodies(rows: RequestLogRow[]): Promise<void> {
  const captured = rows.filter((r) => r.body && r.workspaceId);
  if (!captured.length) return;
  const [requests, responses] = await Promise.all([
    Promise.all(captured.map((r) => packed(r.body!.request))),
    Promise.all(captured.map((r) => packed(r.body!.response))),
  ]);
  await writeQueryable.$queryRawUnsafe(
    INSERT_BODIES,
    captured.map((r) => r.id),
    captured.map((r) => r.createdAt),
    captured.map((r) => r.workspaceId),
    requests,
    responses,
    captured.map((r) => r.body!.requestBytes),
    captured.map((r) => r.body!.responseBytes),
    captured.map((r) => r.body!.truncated),
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

const unpacked = async (bytes: Uint8Array | null) => (bytes ? (await gunzipAsync(bytes)).toString() : null);

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
