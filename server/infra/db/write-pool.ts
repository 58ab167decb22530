// Small pg pools for the hot path's writes: their sessions commit with synchronous_commit off, and
// one statement is one round trip, without an interactive transaction around it. What they commit
// is acknowledged by PostgreSQL before the write resolves; only the WAL flush to disk is not waited
// for (see docs/BILLING.md for the window a crash of PostgreSQL itself can lose). Two pools, shared
// by every copy of this module in the process:
// - the write pool, for what a call waits for (the response cache's lookups, the rate windows);
// - the pool behind the answers, for what no call waits for (the usage batches while the spool is
//   on, the request log's rows and bodies, the response cache's new entries, batch lines, the
//   spools' replays, the sweep of past rate windows). With the embedded database its backends run
//   at BEHIND_WRITES_NICE (the stack sets it from EMBEDDED_POSTGRES_NICE), so that on the machine
//   they share they are scheduled after the serving processes and the calls' own statements; their
//   batches grow instead (RUNNING.md).
import { createHash } from "node:crypto";
import pg from "pg";
import { databaseUrl, IDLE_CONNECTION_MS } from "./client";
import { env } from "../env";
import { logFor } from "../telemetry/log";
import { lowerProcess } from "./postgres-priority";

const log = logFor("db");

const shared = globalThis as unknown as { gatewayWritePool?: pg.Pool; gatewayBehindPool?: pg.Pool };

/** The application names the pools' sessions show in pg_stat_activity. */
export const WRITE_POOL_NAME = "gateway writes";
export const BEHIND_POOL_NAME = "gateway writes behind the answers";

/**
 * The pools' sessions: synchronous_commit off (above), and every statement planned once, generically,
 * for its connection. Their statements are prepared (below), but with the default
 * plan_cache_mode PostgreSQL replans a prepared statement for each execution whenever the
 * generic plan's estimate looks worse than the custom plans': the response cache's lookup (its
 * generic plan guesses 10 keys where a call has 1 to 5) was replanned on every execution, 150
 * against 67 µs of the backend's CPU per lookup. The pools run only statements whose plan does not
 * depend on their parameters' values (point lookups and writes by key, batches through unnest).
 */
const SESSION_OPTIONS = "-c synchronous_commit=off -c plan_cache_mode=force_generic_plan";

function newPool(name: string, nice: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl(), max: 4, options: SESSION_OPTIONS, application_name: name, keepAlive: true, idleTimeoutMillis: IDLE_CONNECTION_MS });
  pool.on("error", (err) => log.error({ err }, `${name}: idle connection failed`));
  if (nice > 0) pool.on("connect", (client) => lowerProcess((client as unknown as { processID: number }).processID, nice));
  return pool;
}

export function writePool(): pg.Pool {
  return (shared.gatewayWritePool ??= newPool(WRITE_POOL_NAME, 0));
}

export function behindPool(): pg.Pool {
  return (shared.gatewayBehindPool ??= newPool(BEHIND_POOL_NAME, env.BEHIND_WRITES_NICE));
}

// Statements are prepared once per connection (named by their text's hash): the ledger's
// statement is long, and planning it anew on every batch cost more than running it. With the
// sessions' plan_cache_mode (above), each is planned once.
const names = new Map<string, string>();
const nameOf = (sql: string) => names.get(sql) ?? names.set(sql, `w_${createHash("sha1").update(sql).digest("hex").slice(0, 16)}`).get(sql)!;

/** A pool as the `$queryRawUnsafe` of a Prisma client: one prepared statement, its rows. */
const queryable = (pool: () => pg.Pool) => ({
  $queryRawUnsafe: async <T>(sql: string, ...params: unknown[]): Promise<T> => (await pool().query({ name: nameOf(sql), text: sql, values: params })).rows as T,
});
export const writeQueryable = queryable(writePool);
export const behindQueryable = queryable(behindPool);

export async function closeWritePool(): Promise<void> {
  const pools = [shared.gatewayWritePool, shared.gatewayBehindPool];
  shared.gatewayWritePool = shared.gatewayBehindPool = undefined;
  await Promise.all(pools.map((p) => p?.end()));
}
