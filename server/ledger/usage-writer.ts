// The batched usage writer. Usage movements recorded while the previous commit ran go to
// PostgreSQL together: one applyMovements statement (atomic on its own, so no transaction around
// it: one round trip), one commit at a time (so batches of one instance never lock rows against
// each other).
//
// Durability: these statements commit with synchronous_commit off (infra/db/write-pool.ts). A call's answer waits for
// its commit to be acknowledged by PostgreSQL, not for the WAL to reach disk, so a gateway killed
// with SIGKILL loses nothing a client received in full (the commit is already in the server). A
// crash of PostgreSQL itself can lose the usage committed in its last moments: at most
// 3 × wal_writer_delay (200 ms by default, so 600 ms) of usage, never a part of a batch, and the
// balance, key spent and leases of the lost batches are lost with them (they are one statement).
import { writeQueryable } from "../infra/db/write-pool";
import { metrics } from "../infra/telemetry/metrics";
import { applyMovements, type Applied, type Movement } from "./movements";
import { leaseBook, type Hold, type LeaseBook } from "./credit-leases";
import { noteKeySpent } from "./spend-notes";
import { noteCounters } from "./budgets";

type Pending = { movement: Movement; hold?: Hold; resolve: () => void; reject: (err: unknown) => void; queuedAt: number };

const MAX_BATCH = 500;

export class UsageWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private committing = false;
  /** The batch being committed: its size, and when its oldest event was queued (performance.now()). */
  private committingBatch = 0;
  private committingSince: number | null = null;

  constructor(private readonly book: () => LeaseBook = leaseBook) {}

  /**
   * Records a usage movement; resolves once it is committed. The hold (the call's reservation) is
   * ended either way: committed, its charge has taken its place; failed, nothing was charged.
   */
  record(movement: Movement, hold?: Hold): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ movement, hold, resolve, reject, queuedAt: performance.now() });
      this.schedule();
    });
  }

  /** Events waiting for their commit (queued or being committed), and how long the oldest has waited (ms): the writer's lag. */
  lag(): { pending: number; oldestMs: number } {
    const oldest = this.committingSince ?? this.queue[0]?.queuedAt;
    return { pending: this.queue.length + this.committingBatch, oldestMs: oldest === undefined ? 0 : performance.now() - oldest };
  }

  private async commit(batch: Pending[]): Promise<void> {
    const started = performance.now();
    const applied: Applied = await applyMovements(writeQueryable, batch.map((p) => p.movement));
    const m = metrics();
    m.usageWrite.observe((performance.now() - started) / 1000);
    m.usageBatch.observe(batch.length);
    this.book().noteLeases(applied.leases);
    for (const [hash, spent] of applied.keySpent) noteKeySpent(hash, spent);
    if (applied.counters.length) noteCounters(applied.counters);
    for (const p of batch) p.hold?.end();
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    if (this.committing) return; // the running commit schedules the next batch when it ends
    this.committing = true;
    const batch = this.queue.splice(0, MAX_BATCH);
    this.committingSince = batch[0]?.queuedAt ?? null;
    this.committingBatch = batch.length;
    try {
      await this.commit(batch);
      for (const p of batch) p.resolve();
    } catch {
      // One bad movement must not cost the others their charge: commit them one by one.
      for (const p of batch) {
        await this.commit([p]).then(p.resolve, (err: unknown) => {
          p.hold?.end();
          p.reject(err);
        });
      }
    } finally {
      this.committing = false;
      this.committingSince = null;
      this.committingBatch = 0;
      if (this.queue.length) this.schedule();
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }
}

const shared = globalThis as unknown as { gatewayUsageWriter?: UsageWriter };

/** This process's writer (one queue per process, whichever copy of this module loads it). */
export function usageWriter(): UsageWriter {
  return (shared.gatewayUsageWriter ??= new UsageWriter());
}
