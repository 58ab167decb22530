// The meter: writes usage events and charges balances with group commits. Events recorded in the
// same few milliseconds are committed together by ONE statement that inserts them (idempotent on
// the event id), lowers each workspace's balance and raises each API key's `spent` by exactly the
// sum of the events inserted.
// record() resolves only once its event is committed, so callers can hold their last byte.
import { db } from "../infra/db/client";
import { noteKeySpent } from "./spend-notes";
import { formatMoney, type Money } from "../kernel/money";
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
const MAX_INT = 2_147_483_647;
let queue: Pending[] = [];
let scheduled = false;
/** One commit at a time: overlapping batches could lock workspace rows in opposite orders. */
let committing = false;

/** Counts go into int columns: whole numbers from 0 to 2^31-1, whatever a node reported. */
const count = (n: number | undefined) => Math.min(MAX_INT, Math.max(0, Math.floor(Number.isFinite(n) ? n! : 0)));

const COLUMNS = [
  "id", "workspaceId", "apiKeyId", "modelId", "nodeId", "endpoint", "inputTokens", "cachedTokens", "outputTokens",
  "reasoningTokens", "characters", "audioSeconds", "images", "videoSeconds", "cost", "latencyMs",
] as const;

function row(e: UsageEventInput): unknown[] {
  return [
    e.id, e.workspaceId, e.apiKeyId, e.modelId, e.nodeId, e.endpoint, count(e.inputTokens), count(e.cachedTokens), count(e.outputTokens),
    count(e.reasoningTokens), count(e.characters), e.audioSeconds ?? "0", count(e.images), e.videoSeconds ?? "0", formatMoney(e.cost), e.latencyMs ?? null,
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
  // One statement: the events, the workspaces' balances and the keys' `spent` move together, so
  // neither figure can drift from the sum of the usage events actually inserted.
  const sql = `
    WITH inserted AS (
      INSERT INTO "UsageEvent" (${COLUMNS.map((c) => `"${c}"`).join(", ")})
      VALUES ${tuples.join(", ")}
      ON CONFLICT ("id") DO NOTHING
      RETURNING "workspaceId", "apiKeyId", "cost"
    ), totals AS (
      SELECT "workspaceId", SUM("cost") AS total FROM inserted GROUP BY "workspaceId"
    ), key_totals AS (
      SELECT "apiKeyId", SUM("cost") AS total FROM inserted WHERE "apiKeyId" IS NOT NULL GROUP BY "apiKeyId"
    ), keys AS (
      UPDATE "ApiKey" k SET "spent" = k."spent" + kt.total
      FROM key_totals kt WHERE k."id" = kt."apiKeyId"
      RETURNING k."hash", k."spent"::text AS spent
    ), workspaces AS (
      UPDATE "Workspace" w SET "balance" = w."balance" - t.total, "updatedAt" = now()
      FROM totals t WHERE w."id" = t."workspaceId"
      RETURNING w."id", w."balance"::text AS balance
    )
    SELECT 'workspace' AS kind, "id" AS ref, balance AS amount FROM workspaces
    UNION ALL
    SELECT 'key' AS kind, "hash" AS ref, spent AS amount FROM keys`;
  const updated = await db.$queryRawUnsafe<{ kind: "workspace" | "key"; ref: string; amount: string }[]>(sql, ...params);
  for (const r of updated) {
    if (r.kind === "workspace") noteBalance(r.ref, r.amount);
    else noteKeySpent(r.ref, r.amount);
  }
}

async function flush(): Promise<void> {
  scheduled = false;
  if (committing) return; // the running commit schedules the next batch when it ends
  committing = true;
  const batch = queue.splice(0, MAX_BATCH);
  try {
    await commit(batch);
    for (const p of batch) p.resolve();
  } catch {
    // One bad event must not cost the others their charge: commit them one by one.
    for (const p of batch) await commit([p]).then(p.resolve, p.reject);
  } finally {
    committing = false;
    if (queue.length) schedule();
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

/** Who pays: the workspace, and the API key the call was made with (null for dashboard users). */
export type Payer = { workspaceId: string; keyId: string | null };
type CallContext = { principal: Payer; requestId: string };

/** Who pays for a call, and under which idempotency key (the request id, or e.g. a response id). */
export type Metering = { ctx: CallContext; eventId: string; endpoint: string };

type Units = Omit<UsageEventInput, "id" | "workspaceId" | "apiKeyId" | "modelId" | "nodeId" | "endpoint" | "latencyMs">;

/** Records a finished call: its payer, model, node and duration (from `started`), and its units and cost. */
export function recordCall(m: Metering, call: { modelId: string; nodeId: string; started: number }, units: Units): Promise<void> {
  return recordUsage({
    id: m.eventId,
    workspaceId: m.ctx.principal.workspaceId,
    apiKeyId: m.ctx.principal.keyId,
    modelId: call.modelId,
    nodeId: call.nodeId,
    endpoint: m.endpoint,
    latencyMs: Math.round(performance.now() - call.started),
    ...units,
  });
}

/** The usual metering of a request: billed under its request id. */
export const meteringFor = (ctx: CallContext, endpoint: string): Metering => ({ ctx, eventId: ctx.requestId, endpoint });
