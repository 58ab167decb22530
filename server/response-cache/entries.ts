// The response cache's entries: PostgreSQL holds them for every instance (the answer's JSON, which
// PostgreSQL compresses once it is large, with the units and cost of the call that made it), and
// each process keeps the ones it used in an LRU bounded in bytes, in front. New entries are written
// in batches, one statement every few milliseconds, behind the answers. An entry removed or
// replaced anywhere is dropped from every process's memory by NOTIFY; expired ones are never
// answered and are swept from the table.
import { LRUCache } from "lru-cache";
import { behindQueryable, writeQueryable } from "../infra/db/write-pool";
import { pgArray, type ArrayElement } from "../infra/db/pg-array";
import { storedText } from "../infra/storage/stored-text";
import { Channel, listen } from "../infra/db/notify";
import { env } from "../infra/env";
import { logFor } from "../infra/telemetry/log";
import { sentText } from "../kernel/answer-text";

const log = logFor("response-cache");

/** A cached answer: a JSON object, or the payloads of a stream's events in order (with its framing). */
export type CachedAnswer = { kind: "json"; body: unknown } | { kind: "sse"; events: string[]; named: boolean; done: boolean };

export type CacheEntry = {
  workspaceId: string;
  scope: string;
  hash: string;
  route: string;
  modelId: string;
  apiKeyId: string | null;
  answer: CachedAnswer;
  /** Bytes of the answer's JSON. */
  bytes: number;
  inputTokens: number;
  outputTokens: number;
  /** What the call that made it cost (USD decimal string). */
  cost: string;
  expiresAt: number;
};

const memoryKey = (workspaceId: string, scope: string, hash: string) => `${workspaceId} ${scope} ${hash}`;

const memory = new LRUCache<string, CacheEntry>({ maxSize: env.CACHE_MEMORY_BYTES, sizeCalculation: (e) => Math.max(1, e.bytes) });

/**
 * This process's new entries until their statement has run: a call of the same key in those
 * milliseconds finds them here. The LRU takes an entry only once it is asked for again (here or
 * from the table): most answers are never asked for twice, and keeping each of them until the
 * LRU is full made every miss pay for it in the garbage collector's old generation.
 */
const unwritten = new Map<string, CacheEntry>();

let listening: Promise<void> | null = null;

/** Drops what another instance removed or replaced: a whole workspace, one model's or key's entries, or one entry. */
function dropNotified(payload: string): void {
  if (payload === "*") {
    unwritten.clear();
    return memory.clear();
  }
  const [workspaceId, what, ...rest] = payload.split(" ");
  const dropped = (e: CacheEntry) =>
    e.workspaceId === workspaceId && (!what || what === `model:${e.modelId}` || what === `key:${e.apiKeyId}` || (what === "entry" && `${rest[0] ?? ""} ${rest[1]}` === `${e.scope} ${e.hash}`));
  for (const [k, e] of memory.entries()) if (dropped(e)) memory.delete(k);
  for (const [k, e] of unwritten) if (dropped(e)) unwritten.delete(k);
}

function ensureListening(): Promise<void> {
  listening ??= listen(Channel.responseCacheCleared, dropNotified).catch((err: unknown) => {
    listening = null;
    log.warn({ err }, "response cache: not listening for removals; entries expire on their own");
  });
  return listening;
}

// The lookups of every call that asks in the same turn of the event loop go in one statement (one
// round trip, one write to the socket): under load, misses arrive together. A prepared statement,
// planned once per connection (its pool forces the generic plan: by default PostgreSQL replanned
// it on every execution, 0.08 ms of its CPU each).
// Each key is looked up on its own (LATERAL, LIMIT 1), so the one plan made for any keys is the
// key's index, never a join that reads the workspace's entries (which a plain join's generic plan
// chose: 0.4 ms per miss more).
export const LOOKUP_SQL = `
  SELECT i.n, e."route", e."modelId", e."apiKeyId", e."kind", e."named", e."done", e."body", e."bytes", e."inputTokens", e."outputTokens",
    e."cost"::text AS cost, (e."expiresAt" AT TIME ZONE 'UTC') AS "expiresAt"
  FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS i(ws, scope, hash, n)
  CROSS JOIN LATERAL (
    SELECT * FROM "ResponseCacheEntry" e
    WHERE e."workspaceId" = i.ws AND e."scope" = i.scope AND e."hash" = i.hash AND e."expiresAt" > now() AT TIME ZONE 'UTC'
    LIMIT 1
  ) e`;

type Row = { n: string; route: string; modelId: string; apiKeyId: string | null; kind: string; named: boolean; done: boolean; body: Uint8Array; bytes: number; inputTokens: number; outputTokens: number; cost: string; expiresAt: Date };
type Lookup = { workspaceId: string; scope: string; hash: string; found: (row: Row | undefined) => void; failed: (err: unknown) => void };

let lookups: Lookup[] = [];

/** Looks up every key asked for in this turn, in one statement, right after the turn's I/O. */
function lookUp(workspaceId: string, scope: string, hash: string): Promise<Row | undefined> {
  return new Promise((found, failed) => {
    if (lookups.push({ workspaceId, scope, hash, found, failed }) === 1) setImmediate(runLookups);
  });
}

async function runLookups(): Promise<void> {
  const batch = lookups;
  lookups = [];
  try {
    const rows = await writeQueryable.$queryRawUnsafe<Row[]>(LOOKUP_SQL, pgArray(batch.map((l) => l.workspaceId)), pgArray(batch.map((l) => l.scope)), pgArray(batch.map((l) => l.hash)));
    const byPlace = new Map(rows.map((r) => [Number(r.n), r]));
    batch.forEach((l, i) => l.found(byPlace.get(i + 1)));
  } catch (err) {
    for (const l of batch) l.failed(err);
  }
}

/** The live entry of a call's key, from memory or else the database (then kept in memory). */
export async function findEntry(workspaceId: string, scope: string, hash: string, now = Date.now()): Promise<CacheEntry | null> {
  void ensureListening();
  const key = memoryKey(workspaceId, scope, hash);
  const kept = memory.get(key);
  if (kept) {
    if (kept.expiresAt > now) return kept;
    memory.delete(key);
  }
  const fresh = unwritten.get(key);
  if (fresh && fresh.expiresAt > now) {
    memory.set(key, fresh); // asked for again: kept
    return fresh;
  }
  const found = await lookUp(workspaceId, scope, hash);
  if (!found) return null;
  const { n: _n, ...row } = found;
  const text = await storedText(row.body);
  const body = JSON.parse(text) as unknown;
  const answer: CachedAnswer = row.kind === "sse" ? { kind: "sse", events: body as string[], named: row.named, done: row.done } : { kind: "json", body };
  const entry: CacheEntry = { workspaceId, scope, hash, ...row, answer, expiresAt: row.expiresAt.getTime() };
  memory.set(key, entry);
  return entry;
}

type Pending = { entry: CacheEntry; text: string; replacing: boolean; done: () => void; failed: (err: unknown) => void };

const FLUSH_MS = 5;
const MAX_BATCH = 200;
let queue: Pending[] = [];
let timer: NodeJS.Timeout | null = null;
let flushing: Promise<void> | null = null;

const UPSERT = `
  WITH i AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bool[], $9::bool[],
      $10::text[], $11::int[], $12::int[], $13::int[], $14::numeric[], $15::text[], $16::bool[])
      AS i(ws, scope, hash, route, model, key, kind, named, done, body, bytes, input, output, cost, expires, replacing)
  ), stored AS (
    INSERT INTO "ResponseCacheEntry" ("workspaceId", "scope", "hash", "route", "modelId", "apiKeyId", "kind", "named", "done", "body", "bytes",
      "inputTokens", "outputTokens", "cost", "expiresAt")
    SELECT ws, scope, hash, route, model, key, kind, named, done, convert_to(body, 'UTF8'), bytes, input, output, cost, (expires::timestamptz AT TIME ZONE 'UTC')
    FROM i ORDER BY ws, scope, hash
    ON CONFLICT ("workspaceId", "scope", "hash") DO UPDATE SET "route" = EXCLUDED."route", "modelId" = EXCLUDED."modelId", "apiKeyId" = EXCLUDED."apiKeyId",
      "kind" = EXCLUDED."kind", "named" = EXCLUDED."named", "done" = EXCLUDED."done", "body" = EXCLUDED."body", "bytes" = EXCLUDED."bytes",
      "inputTokens" = EXCLUDED."inputTokens", "outputTokens" = EXCLUDED."outputTokens", "cost" = EXCLUDED."cost", "createdAt" = now(), "expiresAt" = EXCLUDED."expiresAt"
    RETURNING 1
  )
  SELECT pg_notify('${Channel.responseCacheCleared}', ws || ' entry ' || scope || ' ' || hash) FROM i WHERE replacing`;

/** Writes the queued entries in one statement (the last of a key in the batch wins); a refreshed key is dropped from every process's memory. */
async function flush(): Promise<void> {
  timer = null;
  const batch = queue.splice(0, MAX_BATCH);
  if (!batch.length) return;
  const last = new Map(batch.map((p) => [memoryKey(p.entry.workspaceId, p.entry.scope, p.entry.hash), p]));
  const rows = [...last.values()];
  const col = (f: (p: Pending) => ArrayElement) => pgArray(rows.map(f));
  try {
    await behindQueryable.$queryRawUnsafe(
      UPSERT,
      col((p) => p.entry.workspaceId), col((p) => p.entry.scope), col((p) => p.entry.hash), col((p) => p.entry.route), col((p) => p.entry.modelId),
      col((p) => p.entry.apiKeyId), col((p) => p.entry.answer.kind), col((p) => p.entry.answer.kind === "sse" && p.entry.answer.named),
      col((p) => p.entry.answer.kind === "sse" && p.entry.answer.done), col((p) => p.text), col((p) => p.entry.bytes), col((p) => p.entry.inputTokens),
      col((p) => p.entry.outputTokens), col((p) => p.entry.cost), col((p) => new Date(p.entry.expiresAt).toISOString()), col((p) => p.replacing),
    );
    for (const p of batch) p.done();
  } catch (err) {
    for (const p of batch) p.failed(err);
  }
  // Written (or given up): the table answers for them from now on.
  for (const p of batch) {
    const key = memoryKey(p.entry.workspaceId, p.entry.scope, p.entry.hash);
    if (unwritten.get(key) === p.entry) unwritten.delete(key);
  }
  if (queue.length) schedule(0);
}

function schedule(delayMs: number): void {
  if (timer || flushing) return;
  timer = setTimeout(() => {
    flushing = flush().finally(() => {
      flushing = null;
      if (queue.length) schedule(FLUSH_MS);
    });
  }, delayMs);
  timer.unref();
}

/**
 * Stores an entry (replacing the key's older one everywhere): this process finds it at once, the
 * table has it when the promise resolves (with others of the same few milliseconds, in one
 * statement). An answer over CACHE_MAX_ENTRY_BYTES is not stored.
 */
export function storeEntry(fields: Omit<CacheEntry, "bytes">, replacing: boolean): Promise<void> {
  void ensureListening();
  const { answer } = fields;
  const sent = answer.kind === "json" && typeof answer.body === "object" && answer.body !== null ? sentText(answer.body) : undefined;
  const text = sent ?? JSON.stringify(answer.kind === "sse" ? answer.events : answer.body);
  if (text.length > env.CACHE_MAX_ENTRY_BYTES) return Promise.resolve();
  const entry: CacheEntry = { ...fields, bytes: text.length };
  const key = memoryKey(entry.workspaceId, entry.scope, entry.hash);
  memory.delete(key); // a refreshed answer replaces the one kept
  unwritten.set(key, entry);
  return new Promise((done, failed) => {
    queue.push({ entry, text, replacing, done, failed });
    schedule(queue.length >= MAX_BATCH ? 0 : FLUSH_MS);
  });
}

