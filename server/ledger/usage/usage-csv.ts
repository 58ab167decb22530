// The usage events of a filter as CSV (RFC 4180: CRLF line ends, fields with commas, quotes or
// line breaks quoted, quotes doubled), newest first, with a header row. The plan, subject, cache-write,
// estimated, tags and response cache columns come last, so readers of the older layout keep their column positions.
import { z } from "zod";
import { csvLine } from "../../kernel/csv";
import { formatMoney } from "../../kernel/money";
import { encodeCursor, usageEventRows } from "./usage-events";
import type { UsageFilter } from "./usage-filter";

export const MAX_CSV_ROWS = 100_000;
const BATCH = 5_000;

const HEADER = [
  "time", "request_id", "endpoint", "model", "key_id", "key_name", "key_prefix", "input_tokens", "cached_tokens",
  "output_tokens", "reasoning_tokens", "characters", "audio_seconds", "images", "video_seconds", "cost_usd", "status", "latency_ms",
  "plan_id", "subject", "cache_write_tokens", "usage_estimated", "tags", "cache_hit", "cache_saved_usd",
];

/** Tags as `key=value` pairs separated by `;` (empty when none). */
const tagText = (tags: Record<string, string> | null) => (tags ? Object.entries(tags).map(([k, v]) => `${k}=${v}`).join(";") : null);

export const ZUsageCsv = z.object({ csv: z.string(), rows: z.number(), truncated: z.boolean() });
export type UsageCsv = z.infer<typeof ZUsageCsv>;


/** At most MAX_CSV_ROWS events (the newest); `truncated` says when there were more. */
export async function usageCsv(workspaceId: string, filter: UsageFilter): Promise<UsageCsv> {
  const lines = [csvLine(HEADER)];
  let rows = 0;
  let cursor: string | undefined;
  for (;;) {
    const want = Math.min(BATCH, MAX_CSV_ROWS - rows);
    const batch = await usageEventRows(workspaceId, filter, want + 1, cursor);
    const page = batch.slice(0, want);
    for (const r of page) {
      lines.push(
        csvLine([
          r.time, r.id, r.endpoint, r.modelId, r.apiKeyId, r.keyName, r.keyPrefix, r.inputTokens, r.cachedTokens,
          r.outputTokens, r.reasoningTokens, r.characters, r.audioSeconds, r.images, r.videoSeconds, formatMoney(r.cost),
          "succeeded", r.latencyMs, r.planId, r.subject, r.cacheWriteTokens, r.usageEstimated ? "true" : "false", tagText(r.tags),
          r.cacheHit ? "true" : "false", formatMoney(r.cacheSaved),
        ]),
      );
    }
    rows += page.length;
    if (batch.length <= want) return { csv: lines.join(""), rows, truncated: false };
    if (rows >= MAX_CSV_ROWS) return { csv: lines.join(""), rows, truncated: true };
    cursor = encodeCursor(page[page.length - 1]!);
  }
}
