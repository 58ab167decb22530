// What each of a workspace's routes did lately, from the request log's `routing` column: the calls
// each target answered in the last hour (its share), and the newest calls that needed more than
// one attempt or failed. Read by the dashboard; nothing here is on the request path.
import { db } from "../../infra/db/client";
import type { RouteAttempt } from "../../kernel/call-outcome";

export type RouteShare = { route: string; target: string | null; calls: number };
export type RouteFailure = { id: string; created_at: number; route: string; status: number; attempts: RouteAttempt[] };

export async function routeShares(workspaceId: string, sinceMs = 3_600_000): Promise<RouteShare[]> {
  const rows = await db.$queryRaw<{ route: string; target: string | null; calls: bigint }[]>`
    SELECT "routing"->>'route' AS route,
           CASE WHEN "routing"->'target' = 'null'::jsonb THEN NULL
                ELSE concat("routing"->'target'->>'model', COALESCE('@' || ("routing"->'target'->>'node'), '')) END AS target,
           count(*) AS calls
    FROM "RequestLog"
    WHERE "workspaceId" = ${workspaceId} AND "createdAt" > ${new Date(Date.now() - sinceMs)} AND "routing" IS NOT NULL
    GROUP BY 1, 2 ORDER BY 1, 3 DESC`;
  return rows.map((r) => ({ route: r.route, target: r.target, calls: Number(r.calls) }));
}

export async function routeFailures(workspaceId: string, limit = 20): Promise<RouteFailure[]> {
  const rows = await db.$queryRaw<{ id: string; createdAt: Date; routing: { route: string; attempts: RouteAttempt[] }; status: number }[]>`
    SELECT "id", "createdAt", "routing", "status" FROM "RequestLog"
    WHERE "workspaceId" = ${workspaceId} AND "routing" IS NOT NULL AND "createdAt" > now() - interval '7 days'
      AND ("status" >= 400 OR jsonb_array_length("routing"->'attempts') > 1)
    ORDER BY "createdAt" DESC LIMIT ${limit}`;
  return rows.map((r) => ({ id: r.id, created_at: Math.floor(r.createdAt.getTime() / 1000), route: r.routing.route, status: r.status, attempts: r.routing.attempts }));
}
