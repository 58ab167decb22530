// Requests and tokens per minute across instances, without a database round trip per request.
//
// Time is cut into fixed one-minute windows (UTC, aligned to the minute). Per scope and window,
// the instances take slices of the limit from PostgreSQL (one statement that never lets the
// slices of a window add up to more than the limit) and admit calls from their slice in memory.
// A slice is small (a sixteenth of the limit, or what one call needs), so an instance asks the
// database about 16 times per window and scope at full rate, and what a quiet instance holds
// unused is little. Bounds (docs/LIMITS.md): in any window the instances together admit at most
// the limit; a client is refused only once at least limit - (instances - 1) x slice requests
// (limit - (instances - 1) x 2 x slice tokens) were admitted.
// Tokens are counted up front (the most a call can use) and what a call did not use is given back
// in the same window: to its instance's slice, and beyond one slice's worth to the shared row (in
// the background, at once when a slice's worth is pending, else within RETURN_MS), so unused
// tokens are not stranded on one instance; until they are there, they are still this instance's
// to admit (a call that needs them waits for a return on its way). An instance that found the
// window used up asks again only after EXHAUSTED_MS (others may have given tokens back meanwhile).
import { behindQueryable, writeQueryable } from "../../infra/db/write-pool";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("limits");

export const WINDOW_MS = 60_000;

const TAKE_SQL = `
  INSERT INTO "RateWindow" ("scope", "windowStart", "taken", "lastTake", "expiresAt")
  VALUES ($1, $2, LEAST($3::int, $4::int), LEAST($3::int, $4::int), to_timestamp(($2::bigint + ${2 * WINDOW_MS}) / 1000.0))
  ON CONFLICT ("scope", "windowStart") DO UPDATE SET
    "lastTake" = LEAST($3::int, GREATEST($4::int - "RateWindow"."taken", 0)),
    "taken" = "RateWindow"."taken" + LEAST($3::int, GREATEST($4::int - "RateWindow"."taken", 0))
  RETURNING "taken", "lastTake"`;

const RETURN_SQL = `
  UPDATE "RateWindow" SET "taken" = GREATEST("taken" - $3::int, 0) WHERE "scope" = $1 AND "windowStart" = $2
  RETURNING "taken"`;

const SWEEP_SQL = `DELETE FROM "RateWindow" WHERE "expiresAt" < now()`;

const RETURN_MS = 200;
const EXHAUSTED_MS = 250;
const sliceOf = (limit: number) => Math.ceil(limit / 16);

type Window = {
  start: number;
  limit: number;
  /** What this instance may still admit from the slices it took. */
  local: number;
  /** All that the instances had taken of this window when the database last answered. */
  taken: number;
  /** When the database last had nothing left to give (0: not this window). */
  exhaustedAt: number;
  asking: Promise<void> | null;
  /** Given back beyond a slice's worth, not yet returned to the shared row. */
  returning: number;
  /** Being returned to the shared row now: how much, and the statement doing it. */
  inFlight: number;
  giving: Promise<void> | null;
};

export type WindowAnswer = { ok: boolean; limit: number; remaining: number; resetMs: number };

export class RateWindows {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;
  private readonly pendingReturns = new Map<string, Window>();
  private returnTimer: NodeJS.Timeout | undefined;
  readonly stats = { asks: 0 };

  /** Takes `amount` from the scope's current window under `limit`; from memory while the slice lasts. */
  async take(scope: string, limit: number, amount: number, now = Date.now()): Promise<WindowAnswer> {
    const start = now - (now % WINDOW_MS);
    const resetMs = start + WINDOW_MS - now;
    for (;;) {
      const w = this.current(scope, start, limit);
      if (w.local < amount && w.returning > 0) {
        // Tokens given back and not yet returned to the shared row are still this instance's.
        w.local += w.returning;
        w.returning = 0;
      }
      if (w.local >= amount) {
        w.local -= amount;
        return { ok: true, limit, remaining: this.remaining(w, limit), resetMs };
      }
      if (w.giving) {
        // Tokens on their way back to the shared row: ask for them once they are there.
        await w.giving;
        continue;
      }
      const exhausted = w.exhaustedAt > 0 && Date.now() - w.exhaustedAt < EXHAUSTED_MS;
      if (exhausted || amount > limit) return { ok: false, limit, remaining: this.remaining(w, limit), resetMs };
      if (w.asking) {
        await w.asking;
        continue;
      }
      const slice = Math.max(amount - w.local, sliceOf(limit));
      w.asking = this.ask(scope, w, limit, slice).finally(() => (w.asking = null));
      await w.asking;
    }
  }

  /** What `take` would report, without taking anything (for answers that were not admitted through the limits). */
  peek(scope: string, limit: number, now = Date.now()): WindowAnswer {
    const start = now - (now % WINDOW_MS);
    const w = this.windows.get(scope);
    const remaining = w && w.start === start ? this.remaining(w, limit) : limit;
    return { ok: true, limit, remaining, resetMs: start + WINDOW_MS - now };
  }

  /** Gives back to this instance's slice what a call admitted in the window starting at `start` did not use. */
  giveBack(scope: string, start: number, amount: number): void {
    const w = this.windows.get(scope);
    if (!w || w.start !== start || amount <= 0) return;
    w.local += amount;
    const keep = sliceOf(w.limit);
    if (w.local <= keep) return;
    w.returning += w.local - keep;
    w.local = keep;
    this.pendingReturns.set(scope, w);
    if (w.returning >= keep) this.returnTokens(scope, w);
    else this.returnTimer ??= setTimeout(() => this.returnAll(), RETURN_MS).unref();
  }

  private returnAll(): void {
    this.returnTimer = undefined;
    for (const [scope, w] of this.pendingReturns) this.returnTokens(scope, w);
  }

  /** Returns what this instance holds beyond a slice to the shared row, for every instance to take. */
  private returnTokens(scope: string, w: Window): void {
    this.pendingReturns.delete(scope);
    const amount = w.returning;
    w.returning = 0;
    if (amount <= 0 || this.windows.get(scope) !== w) return;
    w.inFlight += amount;
    const done = (taken: number | undefined) => {
      w.inFlight -= amount;
      if (w.giving === giving) w.giving = null;
      if (taken === undefined) return;
      w.taken = taken;
      w.exhaustedAt = 0;
    };
    const giving: Promise<void> = writeQueryable.$queryRawUnsafe<{ taken: number }[]>(RETURN_SQL, scope, w.start, amount).then(
      ([row]) => done(row?.taken ?? w.taken),
      (err) => {
        done(undefined);
        log.error({ err }, "limits: giving tokens back failed");
      },
    );
    w.giving = giving;
  }

  /** What this instance can tell of what is left: what the database has not given out, and its own slice. */
  private remaining(w: Window, limit: number): number {
    return Math.max(0, limit - w.taken) + w.local + w.returning + w.inFlight;
  }

  private current(scope: string, start: number, limit: number): Window {
    let w = this.windows.get(scope);
    if (w && w.start === start) w.limit = limit;
    else {
      w = { start, limit, local: 0, taken: 0, exhaustedAt: 0, asking: null, returning: 0, inFlight: 0, giving: null };
      this.windows.set(scope, w);
      if (this.windows.size > 10_000) this.forgetOld(start);
    }
    return w;
  }

  private async ask(scope: string, w: Window, limit: number, slice: number): Promise<void> {
    this.stats.asks++;
    const [row] = await writeQueryable.$queryRawUnsafe<{ taken: number; lastTake: number }[]>(TAKE_SQL, scope, w.start, slice, limit);
    w.local += row!.lastTake;
    w.taken = row!.taken;
    w.exhaustedAt = row!.taken >= limit ? Date.now() : 0;
    this.sweep(w.start);
  }

  private forgetOld(start: number): void {
    for (const [scope, w] of this.windows) if (w.start < start && !w.asking) this.windows.delete(scope);
  }

  /** Windows long past are deleted, by whichever instance notices first each minute; no call waits for it. */
  private sweep(start: number): void {
    if (start - this.lastSweep < WINDOW_MS) return;
    this.lastSweep = start;
    behindQueryable.$queryRawUnsafe(SWEEP_SQL).catch((err) => log.error({ err }, "limits: sweeping old windows failed"));
  }
}
