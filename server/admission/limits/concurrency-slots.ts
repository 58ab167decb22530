// Concurrent requests across instances, without a database round trip per request.
//
// Per scope, each instance leases a number of slots from PostgreSQL; the leases of all instances
// together never exceed the limit (granted under an advisory lock on the scope, counting the other
// instances' unexpired leases). A call takes a slot of its instance's lease in memory and gives it
// back when it ends. An instance asks for one more slot only when all its slots are in use, and
// gives back the slots it has not needed for IDLE_MS, so a slot freed on one instance serves the
// others within about IDLE_MS + a second. Leases expire after TTL_MS unless renewed (a crashed
// instance's slots come back then). Bounds in docs/LIMITS.md.
import { hostname } from "node:os";
import { db } from "../../infra/db/client";
import { randomBase62 } from "../../kernel/ids";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("limits");

const TTL_MS = 30_000;
const IDLE_MS = 1000;
const TICK_MS = 500;

const GRANT_SQL = `
  WITH others AS (
    SELECT COALESCE(SUM("slots"), 0)::int AS used FROM "ConcurrencyLease"
    WHERE "scope" = $1 AND "instanceId" <> $2 AND "expiresAt" > now()
  )
  INSERT INTO "ConcurrencyLease" ("scope", "instanceId", "slots", "expiresAt")
  SELECT $1, $2, GREATEST(LEAST($3::int, $4::int - o.used), $5::int), clock_timestamp() + $6::int * interval '1 millisecond' FROM others o
  ON CONFLICT ("scope", "instanceId") DO UPDATE SET "slots" = EXCLUDED."slots", "expiresAt" = EXCLUDED."expiresAt"
  RETURNING "slots"`;

type Pool = {
  limit: number;
  leased: number;
  inUse: number;
  /** When the lease was last at its high-water mark (all slots in use). */
  lastFull: number;
  deadline: number;
  renewedAt: number;
  queue: Promise<unknown>;
};

export type Slot = { release(): void };

export class ConcurrencySlots {
  readonly instanceId: string;
  readonly stats = { asks: 0 };
  private readonly pools = new Map<string, Pool>();
  private timer: NodeJS.Timeout | undefined;

  constructor(instanceId = `${hostname()}:${process.pid}:${randomBase62(6)}`) {
    this.instanceId = instanceId;
  }

  /** A slot of the scope under `limit`, or null when every slot of every instance is in use. */
  async acquire(scope: string, limit: number): Promise<{ slot: Slot | null; inUse: number }> {
    const pool = this.poolOf(scope, limit);
    pool.limit = limit;
    const now = Date.now();
    if (pool.inUse < pool.leased && now < pool.deadline) return { slot: this.take(pool), inUse: pool.inUse };
    return this.serially(pool, async () => {
      if (pool.inUse < pool.leased && Date.now() < pool.deadline) return { slot: this.take(pool), inUse: pool.inUse };
      await this.lease(scope, pool, pool.inUse + 1, pool.inUse);
      return { slot: pool.inUse < pool.leased ? this.take(pool) : null, inUse: pool.inUse };
    });
  }

  private take(pool: Pool): Slot {
    pool.inUse++;
    if (pool.inUse === pool.leased) pool.lastFull = Date.now();
    let open = true;
    return {
      release: () => {
        if (!open) return;
        open = false;
        pool.inUse--;
      },
    };
  }

  private poolOf(scope: string, limit: number): Pool {
    let pool = this.pools.get(scope);
    if (!pool) {
      pool = { limit, leased: 0, inUse: 0, lastFull: 0, deadline: 0, renewedAt: 0, queue: Promise.resolve() };
      this.pools.set(scope, pool);
      this.schedule();
    }
    return pool;
  }

  private serially<T>(pool: Pool, work: () => Promise<T>): Promise<T> {
    const run = pool.queue.then(work, work);
    pool.queue = run.catch(() => undefined);
    return run;
  }

  /** Sets this instance's lease to `want` slots if the others leave them, never below `keep`. */
  private async lease(scope: string, pool: Pool, want: number, keep: number): Promise<void> {
    this.stats.asks++;
    const sentAt = Date.now();
    const [, rows] = await db.$transaction([
      db.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext($1))`, `concurrency:${scope}`),
      db.$queryRawUnsafe<{ slots: number }[]>(GRANT_SQL, scope, this.instanceId, want, pool.limit, keep, TTL_MS),
      // The leases of instances long gone (a process restarts under a new instance id).
      db.$executeRawUnsafe(`DELETE FROM "ConcurrencyLease" WHERE "scope" = $1 AND "expiresAt" < now() - interval '10 minutes'`, scope),
    ]);
    pool.leased = rows[0]!.slots;
    pool.deadline = sentAt + TTL_MS - 2000;
    pool.renewedAt = sentAt;
  }

  /** Gives back slots idle for IDLE_MS; renews leases in use; forgets scopes with nothing leased. */
  async maintain(): Promise<void> {
    const now = Date.now();
    const work: Promise<unknown>[] = [];
    for (const [scope, pool] of this.pools) {
      if (pool.leased > pool.inUse && now - pool.lastFull >= IDLE_MS) {
        work.push(this.serially(pool, () => (pool.leased > pool.inUse ? this.lease(scope, pool, pool.inUse, pool.inUse) : Promise.resolve())));
      } else if (pool.leased > 0 && now - pool.renewedAt >= TTL_MS / 3) {
        work.push(this.serially(pool, () => this.lease(scope, pool, pool.leased, pool.inUse)));
      } else if (pool.leased === 0 && pool.inUse === 0) {
        this.pools.delete(scope);
      }
    }
    const failed = (await Promise.allSettled(work)).filter((r) => r.status === "rejected");
    if (failed.length) log.error({ err: (failed[0] as PromiseRejectedResult).reason }, `limits: ${failed.length} concurrency leases could not be kept`);
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.pools.size) {
        clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      void this.maintain();
    }, TICK_MS);
    this.timer.unref();
  }
}
