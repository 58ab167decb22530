// Admission from memory with a bound: per-instance credit leases.
//
// An instance holds, per workspace, a lease: a slice of the balance that it alone may spend,
// granted under the workspace's row lock from the balance minus the other instances' unexpired
// leases (lease-grant.ts). So the leases of all instances together never exceed the balance.
// Every call reserves its highest possible cost from the lease in memory (no database round trip
// while the lease covers it) and gives the reservation back when its charge commits; the charge (capped at the reservation) lowers the balance and this lease in one
// statement (movements.ts). Hence the balance never goes below zero (see docs/BILLING.md for the
// one exception: a lease that expired while its calls were still running).
//
// The database is asked only when the lease cannot cover a call (then for more than the call
// needs, but at most half of what else is free, so other instances are left some), to renew a lease
// in use before it expires, and to give back a lease left idle. A workspace whose free balance
// cannot cover a call is refused from memory until its balance grows (NOTIFY) or `starvedMs` pass.
import { hostname } from "node:os";
import { db, type Tx } from "../infra/db/client";
import { Channel, listen } from "../infra/db/notify";
import { errors } from "../kernel/errors";
import { randomBase62 } from "../kernel/ids";
import { formatMoney, money, Money } from "../kernel/money";
import { Hold } from "./hold";
import { grantLease, type LeaseAnswer, type LeaseRequest } from "./lease-grant";
import { LEDGER_TX, type LeaseRow } from "./movements";

export { Hold } from "./hold";

export type LeaseOptions = {
  /** Lifetime of a lease the database grants; renewed while in use. */
  ttlMs?: number;
  /** A lease unused for this long is given back. */
  idleMs?: number;
  /** After a call could not be covered, calls that need more are refused from memory this long (unless NOTIFY). */
  starvedMs?: number;
  /** Renewal and give-back run this often (0: only when `maintain()` is called). */
  maintainEveryMs?: number;
};

type Lease = {
  /** The lease as the database last reported it (the newest `version` seen). */
  granted: Money;
  version: bigint;
  /** Reservations of calls in flight. */
  held: Money;
  holds: Set<Hold>;
  /** Local clock time after which the lease may have expired: no admission past it. */
  deadline: number;
  renewedAt: number;
  lastUsed: number;
  /** Database work on this lease, one at a time, and how many such pieces are queued. */
  queue: Promise<unknown>;
  queued: number;
  /** While the lease is pinned to what is held (give-back, a video reservation), admissions wait. */
  pinned: boolean;
  starved: { at: number; spare: Money } | null;
  /** What the last top-up asked for beyond the calls waiting, and when: a lease used up fast asks for more next time. */
  topUp: Money;
  askedAt: number;
};

/** The smallest reservation: even a free call needs a workspace with something left. */
const MIN_HOLD = money("0.000000000000000001");
/** A call's reservation is at most held this long (a stream nobody read to its end is given up). */
const MAX_HOLD_MS = 60 * 60_000;
/** A new lease covers the call and, if free, this many more calls like it. */
const HEADROOM = 15;
/** A lease used up within this long after its last top-up asks for twice as much the next time. */
const BUSY_MS = 1000;

type Asked = { answer: LeaseAnswer | undefined; apply: () => void };

export class LeaseBook {
  readonly instanceId: string;
  /** How often the database was asked (the admissions it did not see were answered from memory). */
  readonly stats = { asks: 0 };
  private readonly leases = new Map<string, Lease>();
  private readonly ttlMs: number;
  private readonly idleMs: number;
  private readonly starvedMs: number;
  private readonly maintainEveryMs: number;
  private timer: NodeJS.Timeout | undefined;
  private subscribed: Promise<void> | undefined;

  constructor(instanceId = `${hostname()}:${process.pid}:${randomBase62(6)}`, options: LeaseOptions = {}) {
    this.instanceId = instanceId;
    this.ttlMs = options.ttlMs ?? 30_000;
    this.idleMs = options.idleMs ?? 10_000;
    this.starvedMs = options.starvedMs ?? 1000;
    this.maintainEveryMs = options.maintainEveryMs ?? Math.floor(this.ttlMs / 6);
  }

  /**
   * Reserves `amount` (a call's highest cost) for a call of the workspace, or throws 402
   * insufficient_quota. The hold must be ended once the call's charge committed or the call failed.
   */
  async hold(workspaceId: string, amount: Money | string): Promise<Hold> {
    const need = Money.max(money(amount), MIN_HOLD);
    const lease = this.leases.get(workspaceId);
    return (lease && this.take(lease, workspaceId, need)) ?? this.slowHold(workspaceId, need);
  }

  /** From memory, when the lease covers the call. */
  private take(lease: Lease, workspaceId: string, need: Money): Hold | undefined {
    const now = Date.now();
    if (lease.pinned || now >= lease.deadline || lease.granted.minus(lease.held).lt(need)) return undefined;
    const hold = new Hold(this, lease, workspaceId, need, now);
    lease.held = lease.held.plus(need);
    lease.holds.add(hold);
    lease.lastUsed = now;
    return hold;
  }

  private async slowHold(workspaceId: string, need: Money): Promise<Hold> {
    this.subscribe();
    const lease = this.leaseOf(workspaceId);
    return this.serially(workspaceId, lease, async () => {
      const ready = this.take(lease, workspaceId, need);
      if (ready) return ready;
      const now = Date.now();
      if (lease.starved && now - lease.starved.at < this.starvedMs && need.gt(lease.starved.spare)) throw errors.insufficientQuota();
      const min = lease.held.plus(need);
      // A lease drains as its charges commit, so what is left when it runs out says nothing of
      // the rate: a lease used up within BUSY_MS of its last top-up asks for twice that top-up (so
      // a busy workspace asks the database a few times, not every HEADROOM calls); a quiet one
      // asks for half as much, and never less than HEADROOM more calls like this one.
      const busy = now - lease.askedAt < BUSY_MS;
      lease.topUp = Money.max(need.times(HEADROOM), busy ? lease.topUp.times(2) : lease.topUp.dividedBy(2), lease.granted);
      lease.askedAt = now;
      const want = min.plus(lease.topUp);
      const { answer, apply } = await this.ask(workspaceId, lease, { keep: lease.granted, min, want });
      apply();
      const hold = this.take(lease, workspaceId, need);
      if (hold) {
        lease.starved = null;
        return hold;
      }
      // What a later, smaller call could still get: it asks the database only if it needs no more.
      lease.starved = { at: now, spare: Money.max(money(answer?.free ?? 0).minus(lease.held), 0) };
      throw errors.insufficientQuota();
    });
  }

  private leaseOf(workspaceId: string): Lease {
    let lease = this.leases.get(workspaceId);
    if (!lease) {
      lease = {
        granted: money(0), version: -1n, held: money(0), holds: new Set(), deadline: 0, renewedAt: 0, lastUsed: Date.now(),
        queue: Promise.resolve(), queued: 0, pinned: false, starved: null, topUp: money(0), askedAt: 0,
      };
      this.leases.set(workspaceId, lease);
      this.schedule();
    }
    return lease;
  }

  /** Runs database work on a lease after the work queued before it. */
  private serially<T>(workspaceId: string, lease: Lease, work: () => Promise<T>): Promise<T> {
    lease.queued++;
    const run = lease.queue.then(work, work).finally(() => {
      // A lease nobody holds or waits for, with nothing granted and no refusal to remember, is forgotten.
      const remembered = lease.starved && Date.now() - lease.starved.at < this.starvedMs;
      if (--lease.queued === 0 && lease.held.isZero() && lease.granted.isZero() && !remembered && this.leases.get(workspaceId) === lease) {
        this.leases.delete(workspaceId);
      }
    });
    lease.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Sets this instance's lease (lease-grant.ts). `apply` records the answer, if it is the newest the
   * instance has seen; inside a caller's transaction, only once that committed.
   */
  private async ask(workspaceId: string, lease: Lease, p: LeaseRequest, tx?: Tx): Promise<Asked> {
    const sentAt = Date.now();
    this.stats.asks++;
    const run = (t: Tx) => grantLease(t, workspaceId, this.instanceId, p, this.ttlMs);
    const answer = tx ? await run(tx) : await db.$transaction(run, LEDGER_TX);
    const apply = () => {
      if (!answer) return; // no such workspace: nothing granted
      this.noteLease(lease, { amount: answer.amount, version: BigInt(answer.version) });
      // The database's expiry counts from after `sentAt`; the margin absorbs timer delays.
      lease.deadline = sentAt + this.ttlMs - Math.min(2000, this.ttlMs / 10);
      lease.renewedAt = sentAt;
    };
    return { answer, apply };
  }

  private noteLease(lease: Lease, row: { amount: string; version: bigint }): void {
    if (row.version <= lease.version) return;
    lease.version = row.version;
    lease.granted = money(row.amount);
  }

  /** Called by the usage writer with the lease rows its statement lowered. */
  noteLeases(rows: LeaseRow[]): void {
    for (const r of rows) {
      const lease = r.instanceId === this.instanceId ? this.leases.get(r.workspaceId) : undefined;
      if (lease) this.noteLease(lease, r);
    }
  }

  unhold(hold: Hold): void {
    const lease = hold.lease as Lease;
    if (!lease.holds.delete(hold)) return;
    lease.held = lease.held.minus(hold.amount);
  }

  /**
   * Runs `work` in a transaction in which this instance's lease on the workspace is pinned to what
   * its calls in flight hold, with the workspace's row locked until the commit. `free` is what
   * neither this instance's calls nor any other instance's lease holds: what a video job may
   * reserve. Admissions of the workspace on this instance wait meanwhile.
   */
  async withFreeBalance<T>(workspaceId: string, work: (tx: Tx, free: Money) => Promise<T>): Promise<T> {
    const lease = this.leaseOf(workspaceId);
    return this.serially(workspaceId, lease, async () => {
      lease.pinned = true;
      try {
        let apply: (() => void) | undefined;
        const result = await db.$transaction(async (tx) => {
          const asked = await this.ask(workspaceId, lease, { keep: lease.held, min: lease.held, want: lease.held }, tx);
          apply = asked.apply;
          const free = asked.answer ? Money.max(money(asked.answer.free).minus(asked.answer.amount), 0) : money(0);
          return work(tx, free);
        }, LEDGER_TX);
        apply?.();
        return result;
      } finally {
        lease.pinned = false;
      }
    });
  }

  /** Renews leases in use that are a third of the way to expiry; gives back leases left idle. */
  async maintain(): Promise<void> {
    const now = Date.now();
    const work: Promise<unknown>[] = [];
    for (const [workspaceId, lease] of this.leases) {
      for (const hold of lease.holds) {
        if (now - hold.createdAt > MAX_HOLD_MS) {
          console.error(`ledger: a reservation of ${formatMoney(hold.amount)} USD on ${workspaceId} was never ended; given back after ${MAX_HOLD_MS} ms`);
          hold.end();
        }
      }
      if (lease.held.isZero() && now - lease.lastUsed >= this.idleMs) work.push(this.giveBack(workspaceId, lease));
      else if ((lease.granted.gt(0) || lease.held.gt(0)) && now - lease.renewedAt >= this.ttlMs / 3) work.push(this.renew(workspaceId, lease));
    }
    const failed = (await Promise.allSettled(work)).filter((r) => r.status === "rejected");
    if (failed.length) console.error(`ledger: ${failed.length} lease renewals failed:`, (failed[0] as PromiseRejectedResult).reason);
  }

  /** Extends the lease as it is (never shrinks it: calls admitted meanwhile may be using it). */
  private renew(workspaceId: string, lease: Lease): Promise<void> {
    return this.serially(workspaceId, lease, async () => {
      const p = { keep: lease.granted, min: lease.granted, want: lease.granted };
      (await this.ask(workspaceId, lease, p)).apply();
    });
  }

  /** Shrinks an idle lease to nothing, so other instances (and video jobs) can have its money. */
  private giveBack(workspaceId: string, lease: Lease): Promise<void> {
    return this.serially(workspaceId, lease, async () => {
      if (!lease.held.isZero() || Date.now() - lease.lastUsed < this.idleMs || lease.granted.isZero()) return;
      lease.pinned = true;
      try {
        (await this.ask(workspaceId, lease, { keep: money(0), min: money(0), want: money(0) })).apply();
      } finally {
        lease.pinned = false;
      }
    });
  }

  /** Gives every lease back (graceful shutdown; leases expire on their own otherwise). */
  async giveBackAll(): Promise<void> {
    for (const lease of this.leases.values()) lease.lastUsed = 0;
    await Promise.allSettled([...this.leases].map(([id, lease]) => this.giveBack(id, lease)));
    this.stop();
  }

  /** What this instance holds on a workspace (for tests and metrics). */
  snapshot(workspaceId: string): { granted: string; held: string; holds: number } | null {
    const lease = this.leases.get(workspaceId);
    return lease ? { granted: formatMoney(lease.granted), held: formatMoney(lease.held), holds: lease.holds.size } : null;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer || this.maintainEveryMs <= 0) return;
    this.timer = setInterval(() => {
      if (!this.leases.size) return this.stop();
      this.maintain().catch((err) => console.error("ledger: lease upkeep failed:", err));
    }, this.maintainEveryMs);
    this.timer.unref();
  }

  /** Credits added, a reservation released or a lease given back elsewhere: look again. */
  private subscribe(): void {
    this.subscribed ??= listen(Channel.balanceChanged, (workspaceId) => {
      for (const [id, lease] of this.leases) if (workspaceId === "*" || workspaceId === id) lease.starved = null;
    }).catch((err) => {
      this.subscribed = undefined; // starvedMs still bounds how long a refusal is remembered
      console.error("ledger: LISTEN failed", err);
    });
  }
}

const shared = globalThis as unknown as { gatewayLeaseBook?: LeaseBook };

/** This process's lease book (one per process, whichever copy of this module loads it). */
export function leaseBook(): LeaseBook {
  return (shared.gatewayLeaseBook ??= new LeaseBook());
}
