// The meter: writes usage events and charges balances with group commits. Events recorded in the
// same few milliseconds are committed together by ONE statement that inserts them (idempotent on
// the event id) and lowers each workspace's balance by exactly the sum of the events inserted.
// record() resolves only once its event is committed, so callers can hold their last byte.
import { db } from "../db/client";
import { formatMoney, type Money } from "../money";
import { noteBalance } from "./balance-cache";

export type UsageEventInput = {
  id: string;
  workspaceId: string;
  apiKeyId: string | null;
  modelId: string;
  nodeId: string | null;
  endpoint: string;
  inputTokens?: number;
  cachedTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  characters?: number;
  audioSeconds?: string;
  images?: number;
  videoSeconds?: string;
  cost: Money;
  latencyMs?: number;
};

type Pending = { event: UsageEventInput; resolve: () => void; reject: (err: unknown) => void };

const MAX_BATCH = 500;
let queue: Pending[] = [];
let scheduled = false;

const COLUMNS = [
  "id", "workspaceId", "apiKeyId", "modelId", "nodeId", "endpoint", "inputTokens", "cachedTokens", "outputTokens",
  "reasoningTokens", "characters", "audioSeconds", "images", "videoSeconds", "cost", "latencyMs",
] as const;

function row(e: UsageEventInput): unknown[] {
  return [
    e.id, e.workspaceId, e.apiKeyId, e.modelId, e.nodeId, e.endpoint, e.inputTokens ?? 0, e.cachedTokens ?? 0, e.outputTokens ?? 0,
    e.reasoningTokens ?? 0, e.characters ?? 0, e.audioSeconds ?? "0", e.images ?? 0, e.videoSeconds ?? "0", formatMoney(e.cost), e.latencyMs ?? null,
  ];
}

const CASTS = ["text", "text", "text", "text", "text", "text", "int", "int", "int", "int", "int", "numeric", "int", "numeric", "numeric", "int"];

async function commit(batch: Pending[]): Promise<void> {
  const params: unknown[] = [];
  const tuples = batch.map(({ event }) => {
    const values = row(event).map((v, i) => {
      params.push(v);
      return `$${params.length}::${CASTS[i]}`;
    });
    return `(${values.join(", ")})`;
  });
  const sql = `
    WITH inserted AS (
      INSERT INTO "UsageEvent" (${COLUMNS.map((c) => `"${c}"`).join(", ")})
      VALUES ${tuples.join(", ")}
      ON CONFLICT ("id") DO NOTHING
      RETURNING "workspaceId", "cost"
    ), totals AS (
      SELECT "workspaceId", SUM("cost") AS total FROM inserted GROUP BY "workspaceId"
    )
    UPDATE "Workspace" w SET "balance" = w."balance" - t.total, "updatedAt" = now()
    FROM totals t WHERE w."id" = t."workspaceId"
    RETURNING w."id", w."balance"::text AS balance`;
  const updated = await db.$queryRawUnsafe<{ id: string; balance: string }[]>(sql, ...params);
  for (const w of updated) noteBalance(w.id, w.balance);
}

async function flush(): Promise<void> {
  scheduled = false;
  const batch = queue.splice(0, MAX_BATCH);
  if (queue.length) schedule();
  try {
    await commit(batch);
    for (const p of batch) p.resolve();
  } catch (err) {
    for (const p of batch) p.reject(err);
  }
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(() => void flush());
}

/** Records one billable call; resolves when it is committed. The same id is charged only once. */
export function recordUsage(event: UsageEventInput): Promise<void> {
  return new Promise((resolve, reject) => {
    queue.push({ event, resolve, reject });
    schedule();
  });
}
