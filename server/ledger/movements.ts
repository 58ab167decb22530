// The one way a balance changes. applyMovements writes a batch of movements with ONE statement:
// each movement is inserted idempotently (its id is the idempotency key), usage movements insert
// their usage event and credit movements their credit ledger entry, and every derived figure moves
// by exactly the sum of the movements actually inserted: the workspace's balance, the API key's
// `spent` (usage only) and the credit lease the charge was reserved from. A repeated id inserts
// nothing and so changes nothing. Net increases of a workspace's balance are announced over
// NOTIFY (delivered at commit), so instances that ran out of lease look again.
import { ROLLUP_CTES, ROLLUP_RETURNING } from "./usage/rollup-sql";
import { Channel } from "../infra/db/notify";
import { pgArray, type ArrayElement } from "../infra/db/pg-array";
import { formatMoney, money, Money } from "../kernel/money";

export type MovementKind = "usage" | "credit" | "adjustment" | "video_reserve" | "video_settle" | "video_release" | "ft_reserve" | "ft_settle" | "ft_release";

/** What a usage movement records beside its amount (the UsageEvent row). */
export type UsageRecord = {
  eventId: string;
  modelId: string;
  nodeId: string | null;
  endpoint: string;
  inputTokens?: number;
  cachedTokens?: number;
  cacheWriteTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  /** The node reported no usage: the tokens are the gateway's own count. */
  estimated?: boolean;
  /** The call's tags (its metadata's and its x-gateway-tags header's). */
  tags?: Record<string, string> | null;
  characters?: number;
  audioSeconds?: string;
  images?: number;
  videoSeconds?: string;
  latencyMs?: number | null;
  /** The plan and end-user subject of a call under a plan. */
  planId?: string | null;
  subject?: string | null;
  /** A call paid with x402: the paying wallet, the scheme, and the settlement's transaction (none when nothing was settled). */
  payer?: string | null;
  paymentScheme?: string | null;
  paymentTx?: string | null;
  /** Answered by the response cache: the units are the original call's, the cost the cache price; `cacheSaved` what the original cost beyond it. */
  cacheHit?: boolean;
  cacheSaved?: string;
  /** When the call was charged (ISO); absent: when the statement runs. A spool replayed later keeps it. */
  at?: string;
};

export type Movement = {
  id: string;
  kind: MovementKind;
  workspaceId: string;
  apiKeyId: string | null;
  /** Signed effect on the balance (charges and reservations negative). At most 18 decimal places are kept. */
  amount: Money | string;
  usage?: UsageRecord;
  /** For credits and adjustments: the CreditLedgerEntry written with the movement. */
  entry?: { id: string; note: string | null; createdById: string | null };
  /** The instance whose credit lease the charge was reserved from: its lease shrinks by the charge. */
  leaseInstanceId?: string;
  /** Spend counters (budgets) the charge raises, by name (kernel/spend-counters.ts). */
  counters?: readonly string[];
};

export type LeaseRow = { workspaceId: string; instanceId: string; amount: string; version: bigint };

export type Applied = {
  /** Ids of the movements inserted by this call (a repeated id is absent). */
  inserted: Set<string>;
  balances: Map<string, string>;
  /** New `spent` per API key hash. */
  keySpent: Map<string, string>;
  leases: LeaseRow[];
  /** New `spent` of each spend counter raised. */
  counters: { workspaceId: string; counter: string; spent: string }[];
};

/** PostgreSQL refused a movement itself (bad data, a constraint): trying it again cannot help. */
export const isRejection = (err: unknown) => /^(22|23)/.test(String((err as { code?: unknown })?.code ?? ""));

/** A Prisma client or transaction, or the write pool (infra/db/write-pool.ts). */
type Queryable = { $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T> };

/** Ledger transactions may wait for a connection and for a workspace's row lock under load. */
export const LEDGER_TX = { maxWait: 10_000, timeout: 30_000 };

const MAX_INT = 2_147_483_647;
const PLACES = 18;

/** Counts go into int columns: whole numbers from 0 to 2^31-1, whatever a node reported. */
const count = (n: number | undefined) => Math.min(MAX_INT, Math.max(0, Math.floor(Number.isFinite(n) ? n! : 0)));

/** An amount as the database keeps it (18 places, half-even), so sums in code match sums in SQL. */
export const toStored = (amount: Money | string) => money(amount).toDecimalPlaces(PLACES, Money.ROUND_HALF_EVEN);

// The columns of the statement's input, one array parameter each: the movement, then what its
// usage event or credit entry needs. (Arrays keep the statement's text the same for any batch.)
const COLUMNS: [string, string][] = [
  ["id", "text"], ["kind", "text"], ["workspaceId", "text"], ["apiKeyId", "text"], ["amount", "numeric"], ["lease", "text"],
  ["eventId", "text"], ["modelId", "text"], ["nodeId", "text"], ["endpoint", "text"], ["inputTokens", "int"], ["cachedTokens", "int"],
  ["outputTokens", "int"], ["reasoningTokens", "int"], ["characters", "int"], ["audioSeconds", "numeric"], ["images", "int"],
  ["videoSeconds", "numeric"], ["latencyMs", "int"], ["entryId", "text"], ["note", "text"], ["createdById", "text"],
  ["planId", "text"], ["subject", "text"], ["counters", "text"], ["payer", "text"], ["paymentScheme", "text"], ["paymentTx", "text"],
  ["cacheWriteTokens", "int"], ["usageEstimated", "bool"], ["tags", "text"], ["cacheHit", "bool"], ["cacheSaved", "numeric"], ["at", "text"],
];

function values(m: Movement): ArrayElement[] {
  const u = m.usage;
  return [
    m.id, m.kind, m.workspaceId, m.apiKeyId, formatMoney(toStored(m.amount)), m.leaseInstanceId ?? null,
    u?.eventId ?? null, u?.modelId ?? null, u?.nodeId ?? null, u?.endpoint ?? null, count(u?.inputTokens), count(u?.cachedTokens),
    count(u?.outputTokens), count(u?.reasoningTokens), count(u?.characters), u?.audioSeconds ?? "0", count(u?.images),
    u?.videoSeconds ?? "0", u?.latencyMs == null ? null : count(u.latencyMs), m.entry?.id ?? null, m.entry?.note ?? null, m.entry?.createdById ?? null,
    u?.planId ?? null, u?.subject ?? null, m.counters?.length ? JSON.stringify(m.counters) : null,
    u?.payer ?? null, u?.paymentScheme ?? null, u?.paymentTx ?? null,
    count(u?.cacheWriteTokens), u?.estimated === true, u?.tags ? JSON.stringify(u.tags) : null,
    u?.cacheHit === true, u?.cacheSaved ? formatMoney(toStored(u.cacheSaved)) : "0", u?.at ?? null,
  ];
}

function check(m: Movement): void {
  const sign = money(m.amount).comparedTo(0);
  const negative = m.kind === "usage" || m.kind === "video_reserve" || m.kind === "ft_reserve";
  const positive = m.kind === "credit" || m.kind === "video_settle" || m.kind === "video_release" || m.kind === "ft_settle" || m.kind === "ft_release";
  if ((negative && sign > 0) || (positive && sign < 0)) throw new Error(`ledger: a ${m.kind} movement cannot be ${formatMoney(m.amount)}`);
  if (m.kind === "usage" && !m.usage) throw new Error("ledger: a usage movement needs its usage event");
  if ((m.kind === "credit" || m.kind === "adjustment") && !m.entry) throw new Error("ledger: a credit movement needs its ledger entry");
}

const SQL = `
  WITH input AS (
    SELECT * FROM unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(", ")})
      AS i(${COLUMNS.map(([c]) => `"${c}"`).join(", ")})
  ), moved AS (
    INSERT INTO "BalanceMovement" ("id", "workspaceId", "apiKeyId", "kind", "amount")
    SELECT "id", "workspaceId", "apiKeyId", "kind"::"MovementKind", "amount" FROM input
    ON CONFLICT ("id") DO NOTHING
    RETURNING "id", "workspaceId", "apiKeyId", "kind", "amount"
  ), events AS (
    INSERT INTO "UsageEvent" ("id", "workspaceId", "apiKeyId", "modelId", "nodeId", "endpoint", "inputTokens", "cachedTokens",
      "outputTokens", "reasoningTokens", "characters", "audioSeconds", "images", "videoSeconds", "cost", "latencyMs", "planId", "subject",
      "payer", "paymentScheme", "paymentTx", "cacheWriteTokens", "usageEstimated", "tags", "cacheHit", "cacheSaved", "createdAt")
    SELECT i."eventId", m."workspaceId", m."apiKeyId", i."modelId", i."nodeId", i."endpoint", i."inputTokens", i."cachedTokens",
      i."outputTokens", i."reasoningTokens", i."characters", i."audioSeconds", i."images", i."videoSeconds", -m."amount", i."latencyMs",
      i."planId", i."subject", i."payer", i."paymentScheme", i."paymentTx", i."cacheWriteTokens", i."usageEstimated", i."tags"::jsonb,
      i."cacheHit", i."cacheSaved", COALESCE(i."at"::timestamptz AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')
    FROM moved m JOIN input i ON i."id" = m."id" WHERE m."kind" = 'usage'
    ${ROLLUP_RETURNING}
  ), ${ROLLUP_CTES}, entries AS (
    INSERT INTO "CreditLedgerEntry" ("id", "workspaceId", "kind", "amount", "note", "createdById")
    SELECT i."entryId", m."workspaceId", m."kind"::text::"LedgerKind", m."amount", i."note", i."createdById"
    FROM moved m JOIN input i ON i."id" = m."id" WHERE m."kind" IN ('credit', 'adjustment')
  ), workspace_totals AS (
    SELECT "workspaceId", SUM("amount") AS total FROM moved GROUP BY "workspaceId" ORDER BY "workspaceId"
  ), workspaces AS (
    UPDATE "Workspace" w SET "balance" = w."balance" + t.total, "updatedAt" = now()
    FROM workspace_totals t WHERE w."id" = t."workspaceId"
    RETURNING w."id", w."balance", t.total
  ), key_totals AS (
    SELECT "apiKeyId", -SUM("amount") AS total FROM moved WHERE "kind" = 'usage' AND "apiKeyId" IS NOT NULL GROUP BY "apiKeyId" ORDER BY "apiKeyId"
  ), keys AS (
    UPDATE "ApiKey" k SET "spent" = k."spent" + t.total
    FROM key_totals t WHERE k."id" = t."apiKeyId"
    RETURNING k."hash", k."spent"
  ), lease_totals AS (
    SELECT m."workspaceId", i."lease", -SUM(m."amount") AS total
    FROM moved m JOIN input i ON i."id" = m."id" WHERE i."lease" IS NOT NULL GROUP BY m."workspaceId", i."lease"
  ), leases AS (
    UPDATE "CreditLease" l SET "amount" = l."amount" - t.total, "version" = nextval('"CreditLease_version_seq"')
    FROM lease_totals t WHERE l."workspaceId" = t."workspaceId" AND l."instanceId" = t."lease"
    RETURNING l."workspaceId", l."instanceId", l."amount", l."version"
  ), counter_totals AS (
    SELECT m."workspaceId", c."counter", -SUM(m."amount") AS total
    FROM moved m JOIN input i ON i."id" = m."id" CROSS JOIN LATERAL jsonb_array_elements_text(i."counters"::jsonb) AS c("counter")
    WHERE m."kind" = 'usage' AND i."counters" IS NOT NULL
    GROUP BY m."workspaceId", c."counter" ORDER BY m."workspaceId", c."counter"
  ), counters AS (
    INSERT INTO "SpendCounter" ("workspaceId", "counter", "spent", "updatedAt")
    SELECT "workspaceId", "counter", total, now() FROM counter_totals
    ON CONFLICT ("workspaceId", "counter") DO UPDATE SET "spent" = "SpendCounter"."spent" + EXCLUDED."spent", "updatedAt" = now()
    RETURNING "workspaceId", "counter", "spent"
  ), notified AS (
    SELECT pg_notify('${Channel.balanceChanged}', "id") FROM workspaces WHERE total > 0
  )
  SELECT 'movement' AS kind, "id" AS ref, NULL AS instance, NULL AS amount, NULL::bigint AS version FROM moved
  UNION ALL SELECT 'workspace', "id", NULL, "balance"::text, NULL FROM workspaces
  UNION ALL SELECT 'key', "hash", NULL, "spent"::text, NULL FROM keys
  UNION ALL SELECT 'lease', "workspaceId", "instanceId", "amount"::text, "version" FROM leases
  UNION ALL SELECT 'counter', "workspaceId", "counter", "spent"::text, NULL FROM counters
  UNION ALL SELECT 'notified', NULL, NULL, NULL, COUNT(*) FROM notified`;

type Row = { kind: string; ref: string | null; instance: string | null; amount: string | null; version: bigint | null };

/**
 * Applies movements in one statement (run it inside the transaction of whatever else must happen
 * with them, e.g. a video job's status change). Within one call, a repeated id counts once.
 */
export async function applyMovements(q: Queryable, movements: Movement[]): Promise<Applied> {
  const applied: Applied = { inserted: new Set(), balances: new Map(), keySpent: new Map(), leases: [], counters: [] };
  const seen = new Set<string>();
  // Sorted, so that concurrent statements touch the rows of several workspaces in the same order.
  const unique = movements
    .filter((m) => !seen.has(m.id) && seen.add(m.id))
    .sort((a, b) => (a.workspaceId < b.workspaceId ? -1 : a.workspaceId > b.workspaceId ? 1 : 0));
  if (!unique.length) return applied;
  const columns: ArrayElement[][] = COLUMNS.map(() => []);
  for (const m of unique) {
    check(m);
    values(m).forEach((v, i) => columns[i]!.push(v));
  }
  const rows = await q.$queryRawUnsafe<Row[]>(SQL, ...columns.map(pgArray));
  for (const r of rows) {
    if (r.kind === "movement") applied.inserted.add(r.ref!);
    else if (r.kind === "workspace") applied.balances.set(r.ref!, r.amount!);
    else if (r.kind === "key") applied.keySpent.set(r.ref!, r.amount!);
    else if (r.kind === "counter") applied.counters.push({ workspaceId: r.ref!, counter: r.instance!, spent: r.amount! });
    else if (r.kind === "lease") applied.leases.push({ workspaceId: r.ref!, instanceId: r.instance!, amount: r.amount!, version: BigInt(r.version!) });
  }
  return applied;
}

/** The movement of a billed call: its usage event, charged to the workspace and the key. */
export function usageMovement(
  payer: { workspaceId: string; apiKeyId: string | null },
  cost: Money | string,
  usage: UsageRecord,
  leaseInstanceId?: string,
  counters?: readonly string[],
): Movement {
  return { id: `usage:${usage.eventId}`, kind: "usage", workspaceId: payer.workspaceId, apiKeyId: payer.apiKeyId, amount: money(cost).negated(), usage, leaseInstanceId, counters };
}
