// A small pg pool for the hot path's batched writes (the usage writer): its sessions commit with
// synchronous_commit off, and one statement is one round trip, without an interactive
// transaction around it. What it commits is acknowledged by PostgreSQL before the write
// resolves; only the WAL flush to disk is not waited for (see docs/BILLING.md for the window a
// crash of PostgreSQL itself can lose). Shared by every copy of this module in the process.
import { createHash } from "node:crypto";
import pg from "pg";
import { databaseUrl, IDLE_CONNECTION_MS } from "./client";
import { logFor } from "../telemetry/log";

const log = logFor("db");

const shared = globalThis as unknown as { gatewayWritePool?: pg.Pool };

export function writePool(): pg.Pool {
  if (!shared.gatewayWritePool) {
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: 4, options: "-c synchronous_commit=off", keepAlive: true, idleTimeoutMillis: IDLE_CONNECTION_MS });
    pool.on("error", (err) => log.error({ err }, "write pool: idle connection failed"));
    shared.gatewayWritePool = pool;
  }
  return shared.gatewayWritePool;
}

// Statements are prepared once per connection (named by their text's hash): the ledger's
// statement is long, and planning it anew on every batch cost more than running it.
const names = new Map<string, string>();
const nameOf = (sql: string) => names.get(sql) ?? names.set(sql, `w_${createHash("sha1").update(sql).digest("hex").slice(0, 16)}`).get(sql)!;

/** The pool as the `$queryRawUnsafe` of a Prisma client: one prepared statement, its rows. */
export const writeQueryable = {
  $queryRawUnsafe: async <T>(sql: string, ...params: unknown[]): Promise<T> => (await writePool().query({ name: nameOf(sql), text: sql, values: params })).rows as T,
};

export async function closeWritePool(): Promise<void> {
  const pool = shared.gatewayWritePool;
  shared.gatewayWritePool = undefined;
  await pool?.end();
}
