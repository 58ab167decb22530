// Batch lines are a background tier of their caller's traffic: they pass the same rate limits as
// live calls, but only while the window has more than the live share left (BATCH_RATE_SHARE of
// each limit is all a batch may take), so a batch never starves its key's live calls. A line that
// finds the window at its share waits for the next window instead of failing; a line refused by
// the limits anyway (another instance took the rest) waits as long as the refusal says and runs
// again.
import { accessOf } from "../admission/admit";
import { peekRateLimits } from "../admission/limits/rate-gate";
import type { Principal } from "../identity/principal";
import { env } from "../infra/env";
import type { RateLimitState } from "../kernel/call-outcome";

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

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

/** Waits until the caller's windows have room for a batch line beyond its live share. */
export async function awaitBackgroundTurn(principal: Principal, signal?: AbortSignal): Promise<void> {
  for (;;) {
    const access = await accessOf(principal);
    if (!access.limitScope || (access.limits.rpm === null && access.limits.tpm === null)) return;
    const wait = waitForShare(peekRateLimits(access.limitScope, access.limits));
    if (wait <= 0 || signal?.aborted) return;
    await sleep(wait + 5, signal);
  }
}

export { sleep };
