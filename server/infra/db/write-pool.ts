// A small pg pool for the hot path's batched writes (the usage writer): its sessions commit with
// synchronous_commit off, and one statement is one round trip, without an interactive
// transaction around it. What it commits is acknowledged by PostgreSQL before the write
// resolves; only the WAL flush to disk is not waited for (see docs/BILLING.md for the window a
// crash of PostgreSQL itself can lose). Shared by every copy of this module in the process.
import pg from "pg";
import { databaseUrl } from "./client";

const shared = globalThis as unknown as { gatewayWritePool?: pg.Pool };

export function writePool(): pg.Pool {
  if (!shared.gatewayWritePool) {
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: 4, options: "-c synchronous_commit=off", keepAlive: true });
    pool.on("error", (err) => console.error("write pool: idle connection failed", err));
    shared.gatewayWritePool = pool;
  }
  return shared.gatewayWritePool;
}

/** The pool as the `$queryRawUnsafe` of a Prisma client: one statement, its rows. */
export const writeQueryable = {
  $queryRawUnsafe: async <T>(sql: string, ...params: unknown[]): Promise<T> => (await writePool().query(sql, params)).rows as T,
};

export async function closeWritePool(): Promise<void> {
  const pool = shared.gatewayWritePool;
  shared.gatewayWritePool = undefined;
  await pool?.end();
}
