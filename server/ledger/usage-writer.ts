// The batched usage writer. Usage movements recorded while the previous commit ran go to
// PostgreSQL together: one applyMovements statement (atomic on its own, so no transaction around
// it: one round trip), one commit at a time (so batches of one instance never lock rows against
// each other).
//
// Durability. With the usage spool on (the default, usage-spool.ts), a call's movement is written
// to the process's spool file before its answer ends, and the answer does not wait for
// PostgreSQL: batches are committed every USAGE_COMMIT_DELAY_MS behind the answers, retried
// while the database is unreachable, and replayed from the file by the next process if this one
// dies first. With the spool off (USAGE_SPOOL_DIR=off), or when the file cannot be written, an
// answer waits for its commit to be acknowledged.
//
// Either way the statements commit with synchronous_commit off (infra/db/write-pool.ts): a crash
// of PostgreSQL itself can lose the usage committed in its last moments, at most
// 3 × wal_writer_delay (200 ms by default, so 600 ms), never a part of a batch, and the balance,
// key spent and leases of the lost batches are lost with them (they are one statement).
import { behindQueryable, writeQueryable } from "../infra/db/write-pool";
import { env } from "../infra/env";
import { metrics } from "../infra/telemetry/metrics";
import { logFor } from "../infra/telemetry/log";
import { applyMovements, isRejection, type Applied, type Movement } from "./movements";
import { leaseBook, type Hold, type LeaseBook } from "./credit-leases";
import { noteKeySpent } from "../kernel/spend-notes";
import { noteUsageApplied } from "../kernel/alert-notes";
import { noteCounters } from "./budgets";
import type { Appended, Segment, UsageSpool } from "./usage-spool";

type Pending = { movement: Movement; hold?: Hold; segment: Segment | null; resolve: () => void; reject: (err: unknown) => void; queuedAt: number };

const MAX_BATCH = 500;
/** After a failed commit of spooled movements, the next try waits this long. */
const RETRY_MS = 1000;

const log = logFor("ledger");

type Queryable = Parameters<typeof applyMovements>[0];

export type WriterOptions = { book?: () => LeaseBook; spool?: UsageSpool | null; commitDelayMs?: number; db?: Queryable };

export class UsageWriter {
  private queue: Pending[] = [];
  private timer: { due: number; cancel: () => void } | null = null;
  private committing = false;
  /** The batch being committed: its size, and when its oldest event was queued (performance.now()). */
  private committingBatch = 0;
  private committingSince: number | null = null;
  private idle: (() => void)[] = [];
  private readonly book: () => LeaseBook;
  private spool: UsageSpool | null;
  private readonly commitDelayMs: number;
  private readonly db: Queryable | null;

  constructor(opts: WriterOptions = {}) {
    this.db = opts.db ?? null;
    this.book = opts.book ?? leaseBook;
    this.spool = opts.spool ?? null;
    this.commitDelayMs = opts.commitDelayMs ?? 0;
  }

  /**
   * Records a usage movement. Resolves once it is written to the spool, or (spool off or
   * failing) once it is committed. The hold (the call's reservation) ends when the movement is
   * committed, or when it failed (nothing charged) or was refused by the database.
   */
  record(movement: Movement, hold?: Hold): Promise<void> {
    const appended = this.writeDown(movement);
    return new Promise((resolve, reject) => {
      const p: Pending = { movement, hold, segment: appended?.segment ?? null, resolve, reject, queuedAt: performance.now() };
      this.queue.push(p);
      this.schedule(appended && this.queue.length < MAX_BATCH ? this.commitDelayMs : 0);
      // Down in the spool with the other lines of this turn: the answer may end. A failed write
      // leaves the movement unspooled: its answer waits for the commit, which comes at once.
      appended?.written.then(resolve, (err: unknown) => {
        log.error({ err, dir: this.spool?.dir }, "usage spool: write failed; this call's answer waits for its commit");
        p.segment = null;
        this.schedule(0);
      });
    });
  }

  /** From now on, usage is written to `spool` before the answers end (see the top of this file). */
  useSpool(spool: UsageSpool): void {
    this.spool = spool;
  }

  /** Events waiting for their commit (queued or being committed), and how long the oldest has waited (ms): the writer's lag. */
  lag(): { pending: number; oldestMs: number } {
    const oldest = this.committingSince ?? this.queue[0]?.queuedAt;
    return { pending: this.queue.length + this.committingBatch, oldestMs: oldest === undefined ? 0 : performance.now() - oldest };
  }

  /** Commits what is queued now; resolves once nothing waits (or the deadline passed), then closes the spool if all is in. */
  async drain(deadline = Date.now() + 10_000): Promise<boolean> {
    while ((this.queue.length || this.committing) && Date.now() < deadline) {
      this.schedule(0);
      await new Promise<void>((resolve) => {
        this.idle.push(resolve);
        setTimeout(resolve, Math.max(0, deadline - Date.now())).unref();
      });
    }
    const done = !this.queue.length && !this.committing;
    if (done) this.spool?.close();
    return done;
  }

  private writeDown(movement: Movement): Appended | null {
    if (!this.spool) return null;
    try {
      return this.spool.appendSoon(movement);
    } catch (err) {
      log.error({ err, dir: this.spool.dir }, "usage spool: write failed; this call's answer waits for its commit");
      return null;
    }
  }

  private async commit(batch: Pending[]): Promise<void> {
    const started = performance.now();
    // Behind the answers while they are spooled; with the spool off, answers wait for this commit.
    const db = this.db ?? (this.spool ? behindQueryable : writeQueryable);
    const applied: Applied = await applyMovements(db, batch.map((p) => p.movement));
    const m = metrics();
    m.usageWrite.observe((performance.now() - started) / 1000);
    m.usageBatch.observe(batch.length);
    this.book().noteLeases(applied.leases);
    for (const [hash, spent] of applied.keySpent) noteKeySpent(hash, spent);
    if (applied.counters.length) noteCounters(applied.counters);
    noteUsageApplied({ ...applied, movements: batch.map((p) => p.movement) });
    for (const p of batch) this.settled(p);
  }

  /** A movement is in PostgreSQL (or will never be): its hold ends and its spool line is no longer needed. */
  private settled(p: Pending): void {
    p.hold?.end();
    if (p.segment) this.spool!.committed(p.segment);
  }

  private async flush(): Promise<void> {
    this.timer = null;
    if (this.committing) return; // the running commit schedules the next batch when it ends
    this.committing = true;
    const batch = this.queue.splice(0, MAX_BATCH);
    this.committingSince = batch[0]?.queuedAt ?? null;
    this.committingBatch = batch.length;
    let retry = false;
    try {
      await this.commit(batch);
      for (const p of batch) p.resolve();
    } catch (err) {
      // The database is away and every movement is written down: the batch is kept for the next try.
      if (!isRejection(err) && batch.every((p) => p.segment)) {
        this.queue.unshift(...batch);
        retry = true;
        return;
      }
      // One bad movement must not cost the others their charge: commit them one by one.
      const again: Pending[] = [];
      for (const p of batch) {
        await this.commit([p]).then(p.resolve, (err: unknown) => {
          if (p.segment && !isRejection(err)) return void again.push(p); // the database is away: kept, tried again
          if (p.segment) log.error({ err, movement: p.movement.id, workspaceId: p.movement.workspaceId }, "usage: the database refused a movement; it is dropped");
          this.settled(p);
          p.reject(err);
        });
      }
      this.queue.unshift(...again);
      retry = again.length > 0;
    } finally {
      this.committing = false;
      this.committingSince = null;
      this.committingBatch = 0;
      if (this.queue.length) this.schedule(retry ? RETRY_MS : this.queue.some((p) => !p.segment) ? 0 : this.commitDelayMs);
      else for (const wake of this.idle.splice(0)) wake();
    }
  }

  /** Flushes after `delayMs` (0: on the next turn of the event loop), or sooner if already due sooner. */
  private schedule(delayMs: number): void {
    const due = performance.now() + delayMs;
    if (this.timer && this.timer.due <= due) return;
    this.timer?.cancel();
    const run = () => void this.flush();
    if (delayMs > 0) {
      const t = setTimeout(run, delayMs);
      this.timer = { due, cancel: () => clearTimeout(t) };
    } else {
      const t = setImmediate(run);
      this.timer = { due, cancel: () => clearImmediate(t) };
    }
  }
}

const shared = globalThis as unknown as { gatewayUsageWriter?: UsageWriter };

/** This process's writer (one queue per process, whichever copy of this module loads it). */
export function usageWriter(): UsageWriter {
  return (shared.gatewayUsageWriter ??= new UsageWriter({ commitDelayMs: env.USAGE_COMMIT_DELAY_MS }));
}
