// The response cache's entries: PostgreSQL holds them for every instance (the answer as gzip JSON,
// with the units and cost of the call that made it), and each process keeps the ones it used in
// an LRU bounded in bytes, in front. An entry removed or replaced anywhere is dropped from every
// process's memory by NOTIFY; expired ones are never answered and are swept from the table.
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import { LRUCache } from "lru-cache";
import { db } from "../infra/db/client";
import { Channel, listen } from "../infra/db/notify";
import { env } from "../infra/env";
import { logFor } from "../infra/telemetry/log";

const log = logFor("response-cache");
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

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

let listening: Promise<void> | null = null;

/** Drops what another instance removed or replaced: a whole workspace, one model's or key's entries, or one entry. */
function dropNotified(payload: string): void {
  if (payload === "*") return memory.clear();
  const [workspaceId, what, ...rest] = payload.split(" ");
  for (const [k, e] of memory.entries()) {
    if (e.workspaceId !== workspaceId) continue;
    if (!what || (what === `model:${e.modelId}`) || (what === `key:${e.apiKeyId}`) || (what === "entry" && `${rest[0] ?? ""} ${rest[1]}` === `${e.scope} ${e.hash}`)) memory.delete(k);
  }
}

function ensureListening(): Promise<void> {
  listening ??= listen(Channel.responseCacheCleared, dropNotified).catch((err: unknown) => {
    listening = null;
    log.warn({ err }, "response cache: not listening for removals; entries expire on their own");
  });
  return listening;
}

type Row = { route: string; modelId: string; apiKeyId: string | null; kind: string; named: boolean; done: boolean; body: Uint8Array; bytes: number; inputTokens: number; outputTokens: number; cost: string; expiresAt: Date };

/** The live entry of a call's key, from memory or else the database (then kept in memory). */
export async function findEntry(workspaceId: string, scope: string, hash: string, now = Date.now()): Promise<CacheEntry | null> {
  void ensureListening();
  const key = memoryKey(workspaceId, scope, hash);
  const kept = memory.get(key);
  if (kept) {
    if (kept.expiresAt > now) return kept;
    memory.delete(key);
  }
  const rows = await db.$queryRaw<Row[]>`
    SELECT "route", "modelId", "apiKeyId", "kind", "named", "done", "body", "bytes", "inputTokens", "outputTokens", "cost"::text AS cost, "expiresAt"
    FROM "ResponseCacheEntry"
    WHERE "workspaceId" = ${workspaceId} AND "scope" = ${scope} AND "hash" = ${hash} AND "expiresAt" > now() AT TIME ZONE 'UTC'`;
  const row = rows[0];
  if (!row) return null;
  const body = JSON.parse((await gunzipAsync(row.body)).toString()) as unknown;
  const answer: CachedAnswer = row.kind === "sse" ? { kind: "sse", events: body as string[], named: row.named, done: row.done } : { kind: "json", body };
  const entry: CacheEntry = { workspaceId, scope, hash, ...row, answer, expiresAt: row.expiresAt.getTime() };
  memory.set(key, entry);
  return entry;
}

/** Stores an entry (replacing the key's older one everywhere); resolves once it is in the database. */
export async function storeEntry(entry: CacheEntry, replacing: boolean): Promise<void> {
  void ensureListening();
  memory.set(memoryKey(entry.workspaceId, entry.scope, entry.hash), entry);
  const text = JSON.stringify(entry.answer.kind === "sse" ? entry.answer.events : entry.answer.body);
  const body = await gzipAsync(text);
  const named = entry.answer.kind === "sse" && entry.answer.named;
  const done = entry.answer.kind === "sse" && entry.answer.done;
  const expires = new Date(entry.expiresAt).toISOString();
  await db.$executeRaw`
    INSERT INTO "ResponseCacheEntry" ("workspaceId", "scope", "hash", "route", "modelId", "apiKeyId", "kind", "named", "done", "body", "bytes", "inputTokens", "outputTokens", "cost", "expiresAt")
    VALUES (${entry.workspaceId}, ${entry.scope}, ${entry.hash}, ${entry.route}, ${entry.modelId}, ${entry.apiKeyId}, ${entry.answer.kind}, ${named}, ${done},
      ${body}, ${entry.bytes}, ${entry.inputTokens}, ${entry.outputTokens}, ${entry.cost}::numeric, ${expires}::timestamptz AT TIME ZONE 'UTC')
    ON CONFLICT ("workspaceId", "scope", "hash") DO UPDATE SET "route" = EXCLUDED."route", "modelId" = EXCLUDED."modelId", "apiKeyId" = EXCLUDED."apiKeyId",
      "kind" = EXCLUDED."kind", "named" = EXCLUDED."named", "done" = EXCLUDED."done", "body" = EXCLUDED."body", "bytes" = EXCLUDED."bytes",
      "inputTokens" = EXCLUDED."inputTokens", "outputTokens" = EXCLUDED."outputTokens", "cost" = EXCLUDED."cost", "createdAt" = now(), "expiresAt" = EXCLUDED."expiresAt"`;
  // Another instance may hold the key's older answer in memory: a refresh replaces it everywhere.
  if (replacing) await db.$executeRaw`SELECT pg_notify(${Channel.responseCacheCleared}, ${`${entry.workspaceId} entry ${entry.scope} ${entry.hash}`})`;
}

/** Forgets this process's memory (tests, tools). */
export function clearMemory(): void {
  memory.clear();
}

export { dropNotified as dropFromMemory };
