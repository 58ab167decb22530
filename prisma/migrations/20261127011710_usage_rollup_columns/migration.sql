-- AlterTable
ALTER TABLE "UsageDaily" ADD COLUMN     "cacheHits" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "cacheSaved" DECIMAL(38,18) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "UsageDailyTag" ADD COLUMN     "cacheHits" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "cacheSaved" DECIMAL(38,18) NOT NULL DEFAULT 0;

-- The rollups are kept by the ledger's statement that inserts usage events
-- (server/ledger/usage/rollup-sql.ts). These are the events written before that.
DELETE FROM "UsageDaily";
DELETE FROM "UsageDailyTag";
INSERT INTO "UsageDaily" ("workspaceId", "day", "modelId", "apiKeyId", "planId", "cost", "requests", "inputTokens", "outputTokens", "cacheHits", "cacheSaved")
SELECT "workspaceId", "createdAt"::date, "modelId", COALESCE("apiKeyId", ''), COALESCE("planId", ''),
  SUM("cost"), COUNT(*), SUM("inputTokens"), SUM("outputTokens"), COUNT(*) FILTER (WHERE "cacheHit"), SUM("cacheSaved")
FROM "UsageEvent" GROUP BY 1, 2, 3, 4, 5;
INSERT INTO "UsageDailyTag" ("workspaceId", "day", "tagKey", "tagValue", "modelId", "cost", "requests", "inputTokens", "outputTokens", "cacheHits", "cacheSaved")
SELECT e."workspaceId", e."createdAt"::date, t.key, t.value, e."modelId",
  SUM(e."cost"), COUNT(*), SUM(e."inputTokens"), SUM(e."outputTokens"), COUNT(*) FILTER (WHERE e."cacheHit"), SUM(e."cacheSaved")
FROM "UsageEvent" e CROSS JOIN LATERAL jsonb_each_text(CASE WHEN jsonb_typeof(e."tags") = 'object' THEN e."tags" END) AS t(key, value)
GROUP BY 1, 2, 3, 4, 5;
