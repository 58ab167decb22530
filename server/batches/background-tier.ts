// Batch lines are a background tier of their caller's traffic: they pass the same rate limits as
// live calls, but only while the window has more than the live share left (BATCH_RATE_SHARE of
// each limit is all a batch may take), so a batch never starves its key's live calls. Lines
// starting together must not all read the same room: each line's start is counted in a
// shared window of their own (`batch:<scope>`, taken like the live windows, in PostgreSQL), so the
// lines of a scope take at most the batch share of a window's requests whichever processes and
// instances run them: a batch resumed by another process after its worker stopped does not start
// the window's count again. A line that finds no room waits for the next window instead of
// failing; a line refused by the limits anyway (another instance took the rest) waits as long as
// the refusal says and runs again.
import { setTimeout as wait } from "node:timers/promises";
import { accessOf } from "../admission/admit";
import { peekRateLimits, rateWindows } from "../admission/limits/rate-gate";
import type { Principal } from "../identity/principal";
import { env } from "../infra/env";
import type { RateLimitState } from "../kernel/call-outcome";

/**
 * Waits `ms`, or until `signal` aborts (then resolves too: the caller looks at the signal). Node's
 * timer takes its abort listener off the signal when it fires: a batch's lines share one signal,
 * and a listener left on it per paced line made each next one slower to add (5 % of the first
 * process's CPU while it ran a 3,000-line batch beside live calls) and held every line's closure
 * until the batch ended.
 */
const sleep = (ms: number, signal?: AbortSignal): Promise<void> => wait(ms, undefined, { signal }).catch(() => undefined);

/** How long to wait before a batch line may take from the window, or 0 when it may now. */
export function waitForShare(state: RateLimitState, share = env.BATCH_RATE_SHARE): number {
  let wait = 0;
  for (const w of [state.requests, state.tokens]) {
    if (!w) continue;
    const reserved = Math.ceil(w.limit * (1 - share));
    if (w.remaining <= reserved) wait = Math.max(wait, w.resetMs);
  }
  return wait;
}

/** Counts a line's start against the batch share of the scope's requests per minute (shared by every process); the wait before the next window when the share is used up, else 0. */
async function takeStart(scope: string, rpm: number, share: number, now: number): Promise<number> {
  const taken = await rateWindows().take(`batch:${scope}`, Math.max(1, Math.floor(rpm * share)), 1, now);
  return taken.ok ? 0 : taken.resetMs;
}

/** Waits until the caller's windows have room for a batch line beyond its live share, and counts the line. */
export async function awaitBackgroundTurn(principal: Principal, signal?: AbortSignal): Promise<void> {
  for (;;) {
    const access = await accessOf(principal);
    const scope = access.limitScope;
    if (!scope || (access.limits.rpm === null && access.limits.tpm === null)) return;
    let wait = waitForShare(peekRateLimits(scope, access.limits));
    if (wait <= 0 && access.limits.rpm !== null) wait = await takeStart(scope, access.limits.rpm, env.BATCH_RATE_SHARE, Date.now());
    if (wait <= 0 || signal?.aborted) return;
    await sleep(wait + 5, signal);
  }
}

export { sleep };
