// Verification of API key secrets, cached by hash so a warm key costs no database round trip.
//
// Freshness bound: an entry is refreshed in the background once it is KEY_CACHE_REFRESH_MS old
// and is never used once it is KEY_CACHE_MAX_AGE_MS old (default 4 s), so a revocation made on
// any instance takes effect everywhere within that bound even if a notification is lost.
// Revocations also NOTIFY every instance, which evicts the key at once. Expiry is checked
// against the clock on every call, so an expired key stops working immediately.
//
// Spend limits: a key is refused once its `spent` (maintained by the meter in the statement that
// charges its usage) reaches its `spendLimit`. The meter also updates this instance's cached
// `spent` with every charge it commits, so on the instance that ran a call the next call sees it
// at once; other instances see it within the freshness bound above. Unlike the workspace balance
// (which reserves each call's highest cost, server/ledger/credit-leases.ts), a key's limit admits a
// call while `spent` is below it: the overshoot is at most the calls in flight plus those admitted
// on instances whose entry is still within that bound.
import { boundedLru } from "../../infra/cache/bounded-lru";
import { db } from "../../infra/db/client";
import { FreshCache, Channel } from "../../infra/cache/fresh-cache";
import { env } from "../../infra/env";
import { money } from "../../kernel/money";
import { onKeySpent } from "../../kernel/spend-notes";
import { keyCacheStats } from "./key-cache-stats";
import { hashKey, isWellFormedKey } from "./key-secret";
import { grantOf, type KeyGrant } from "./permissions";

type KeyRecord = {
  id: string;
  name: string;
  workspaceId: string;
  expiresAt: number | null;
  revokedAt: number | null;
  /** USD decimal strings. */
  spendLimit: string | null;
  spent: string;
  planId: string | null;
  /** Made once per load, so that checking a call's operation group and model costs a set lookup (and its tool patterns compile once). */
  grant: KeyGrant | null;
  /** Capture of the key's request and answer bodies: null follows the workspace. */
  capture: boolean | null;
  /** The response cache for the key's calls (null: not set on the key). */
  cache: KeyCache | null;
};

/** A key's own response cache settings: `use` by default (null: its plan's or workspace's), and its own entries. */
export type KeyCache = { defaultOn: boolean | null; ownScope: boolean };

export type KeyVerification =
  /** `spendLimitReached`: what the key has spent is at its limit; it may still read, not spend. */
  | { valid: true; keyId: string; keyName: string; workspaceId: string; planId: string | null; grant?: KeyGrant; capture: boolean | null; cache: KeyCache | null; spendLimitReached: boolean }
  | { valid: false; reason: "malformed" | "not_found" | "revoked" | "expired" };

const LAST_USED_WRITE_INTERVAL_MS = 60_000;
const lastUsedWritten = boundedLru<string, number>(100_000);

/**
 * `spent` only ever grows, so of two readings the larger is the newer: a load that started
 * before a charge was noted must not put the smaller figure back.
 */
function laterSpent(loaded: string, cached: string | undefined): string {
  return cached !== undefined && money(cached).gt(loaded) ? cached : loaded;
}

/** Keys by the hash of their secret (null: no such key), evicted on Channel.keyChanged. */
const cache: FreshCache<KeyRecord | null> = new FreshCache<KeyRecord | null>({
  name: "key",
  channel: Channel.keyChanged,
  maxAgeMs: env.KEY_CACHE_MAX_AGE_MS,
  refreshMs: env.KEY_CACHE_REFRESH_MS,
  load: async (hash) => {
    keyCacheStats.databaseLoads += 1;
    const row = await db.apiKey.findUnique({
      where: { hash },
      select: { id: true, name: true, workspaceId: true, expiresAt: true, revokedAt: true, spendLimit: true, spent: true, planId: true, permissions: true, models: true, tools: true, captureBodies: true, cacheDefault: true, cacheOwnScope: true },
    });
    return (
      row && {
        id: row.id,
        name: row.name,
        workspaceId: row.workspaceId,
        expiresAt: row.expiresAt?.getTime() ?? null,
        revokedAt: row.revokedAt?.getTime() ?? null,
        spendLimit: row.spendLimit?.toString() ?? null,
        spent: laterSpent(row.spent.toString(), cache.peek(hash)?.spent),
        planId: row.planId,
        grant: grantOf(row.permissions, row.models, row.tools),
        capture: row.captureBodies,
        cache: row.cacheDefault !== null || row.cacheOwnScope ? { defaultOn: row.cacheDefault, ownScope: row.cacheOwnScope } : null,
      }
    );
  },
});

/** Called by the ledger with a key's `spent` as it committed it, so this instance enforces the limit at once. */
onKeySpent(function noteKeySpent(hash: string, spent: string): void {
  cache.update(hash, (record) => record && { ...record, spent: laterSpent(spent, record.spent) });
});

/** lastUsedAt is a hint for people, so it is written at most once a minute per key. */
function touch(keyId: string, now: number): void {
  const last = lastUsedWritten.get(keyId) ?? 0;
  if (now - last < LAST_USED_WRITE_INTERVAL_MS) return;
  lastUsedWritten.set(keyId, now);
  db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: new Date(now) } }).catch(() => undefined);
}

export async function verifyKey(secret: string): Promise<KeyVerification> {
  if (!isWellFormedKey(secret)) return { valid: false, reason: "malformed" };
  const record = await cache.get(hashKey(secret));
  const now = Date.now();
  if (!record) return { valid: false, reason: "not_found" };
  if (record.revokedAt !== null) return { valid: false, reason: "revoked" };
  if (record.expiresAt !== null && record.expiresAt <= now) return { valid: false, reason: "expired" };
  touch(record.id, now);
  const spendLimitReached = record.spendLimit !== null && money(record.spent).gte(record.spendLimit);
  // An unrestricted key's grant is undefined, so its principal is what it was before restrictions existed.
  return { valid: true, keyId: record.id, keyName: record.name, workspaceId: record.workspaceId, planId: record.planId, grant: record.grant ?? undefined, capture: record.capture, cache: record.cache, spendLimitReached };
}

/** For tests and tools: forget every cached key. */
export function clearKeyCache(): void {
  cache.evict("*");
}
