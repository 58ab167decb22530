// How the video job queue stands, for the operator's metrics: jobs waiting and rendering, and how
// long the oldest of each has been so (queued since it was created, rendering since it started).
import { db } from "../../infra/db/client";

export type VideoQueueStats = { status: "queued" | "in_progress"; jobs: number; oldestSeconds: number }[];

export async function videoQueueStats(): Promise<VideoQueueStats> {
  const rows = await db.$queryRaw<{ status: "queued" | "in_progress"; jobs: bigint; oldest: number | null }[]>`
    SELECT "status"::text AS "status", count(*) AS "jobs",
      extract(epoch FROM now() - min(CASE WHEN "status" = 'queued' THEN "createdAt" ELSE coalesce("startedAt", "createdAt") END))::float8 AS "oldest"
    FROM "VideoJob" WHERE "status" IN ('queued', 'in_progress') GROUP BY "status"`;
  return (["queued", "in_progress"] as const).map((status) => {
    const row = rows.find((r) => r.status === status);
    return { status, jobs: Number(row?.jobs ?? 0), oldestSeconds: Math.max(0, row?.oldest ?? 0) };
  });
}
