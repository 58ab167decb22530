// The daily rollups of usage, kept in the same statement that inserts the usage events
// (movements.ts): the inserted events summed per UTC day, model, key and plan (UsageDaily) and per
// UTC day, tag pair and model (UsageDailyTag), added to the rows already there. The usage
// summaries read them instead of the events (usage-summary.ts). The upserts go in key order, so two
// batches committing at once take their row locks in the same order.

/** The figures of a group of events (aliased `e`). */
const SUMS = `SUM(e."cost"), COUNT(*), SUM(e."inputTokens"), SUM(e."outputTokens"), COUNT(*) FILTER (WHERE e."cacheHit"), SUM(e."cacheSaved")`;
const ADD = ["cost", "requests", "inputTokens", "outputTokens", "cacheHits", "cacheSaved"].map((c) => `"${c}" = d."${c}" + EXCLUDED."${c}"`).join(", ");
const FIGURES = `"cost", "requests", "inputTokens", "outputTokens", "cacheHits", "cacheSaved"`;

/** The columns the events CTE returns for the rollups. */
export const ROLLUP_RETURNING = `RETURNING "workspaceId", "createdAt", "modelId", "apiKeyId", "planId", "cost", "inputTokens", "outputTokens", "cacheHit", "cacheSaved", "tags"`;

/** CTEs following `events` (an INSERT INTO "UsageEvent" ... ROLLUP_RETURNING) in one WITH. */
export const ROLLUP_CTES = `
  daily AS (
    INSERT INTO "UsageDaily" AS d ("workspaceId", "day", "modelId", "apiKeyId", "planId", ${FIGURES})
    SELECT e."workspaceId", e."createdAt"::date, e."modelId", COALESCE(e."apiKeyId", ''), COALESCE(e."planId", ''), ${SUMS}
    FROM events e GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT ("workspaceId", "day", "modelId", "apiKeyId", "planId") DO UPDATE SET ${ADD}
    RETURNING 1
  ), daily_tags AS (
    INSERT INTO "UsageDailyTag" AS d ("workspaceId", "day", "tagKey", "tagValue", "modelId", ${FIGURES})
    SELECT e."workspaceId", e."createdAt"::date, t.key, t.value, e."modelId", ${SUMS}
    FROM events e CROSS JOIN LATERAL jsonb_each_text(CASE WHEN jsonb_typeof(e."tags") = 'object' THEN e."tags" END) AS t(key, value)
    WHERE t.value IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT ("workspaceId", "day", "tagKey", "tagValue", "modelId") DO UPDATE SET ${ADD}
    RETURNING 1
  )`;

/** The rollups rebuilt from all the usage events (events written without the ledger's statement: a bulk load). */
export const ROLLUP_REBUILD = [
  `DELETE FROM "UsageDaily"`,
  `DELETE FROM "UsageDailyTag"`,
  `INSERT INTO "UsageDaily" ("workspaceId", "day", "modelId", "apiKeyId", "planId", ${FIGURES})
   SELECT e."workspaceId", e."createdAt"::date, e."modelId", COALESCE(e."apiKeyId", ''), COALESCE(e."planId", ''), ${SUMS}
   FROM "UsageEvent" e GROUP BY 1, 2, 3, 4, 5`,
  `INSERT INTO "UsageDailyTag" ("workspaceId", "day", "tagKey", "tagValue", "modelId", ${FIGURES})
   SELECT e."workspaceId", e."createdAt"::date, t.key, t.value, e."modelId", ${SUMS}
   FROM "UsageEvent" e CROSS JOIN LATERAL jsonb_each_text(CASE WHEN jsonb_typeof(e."tags") = 'object' THEN e."tags" END) AS t(key, value)
   WHERE t.value IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5`,
];

