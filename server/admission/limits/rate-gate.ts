// The rate limits of one call: concurrent requests, requests per minute and tokens per minute of
// its scope (a key, or a subject under a plan), from memory (rate-windows.ts,
// concurrency-slots.ts). The state of the windows goes into the call's outcome (the transport
// writes it as OpenAI's x-ratelimit-* headers); a refusal is a 429 rate_limit_exceeded saying when
// to retry.
import type { RateLimitState } from "../../kernel/call-outcome";
import { errors } from "../../kernel/errors";
import { ConcurrencySlots, type Slot } from "./concurrency-slots";
import { RateWindows, WINDOW_MS, type WindowAnswer } from "./rate-windows";

export type RateLimits = { rpm: number | null; tpm: number | null; concurrency: number | null };

/** A call let through: `settle` with the tokens it really used gives back the rest; `release` ends its concurrency slot. */
export type RateTicket = { settle(tokensUsed: number): void; release(): void };

const NOTHING: RateTicket = { settle: () => undefined, release: () => undefined };

const shared = globalThis as unknown as { gatewayRateWindows?: RateWindows; gatewayConcurrency?: ConcurrencySlots };
export const rateWindows = () => (shared.gatewayRateWindows ??= new RateWindows());
export const concurrencySlots = () => (shared.gatewayConcurrency ??= new ConcurrencySlots());

const stateOf = (a: WindowAnswer) => ({ limit: a.limit, remaining: a.remaining, resetMs: a.resetMs });

function refuse(message: string, retryMs: number): never {
  throw errors.rateLimited(message, Math.max(1, Math.ceil(retryMs / 1000)));
}

/** The state of a caller's limits for an answer that did not pass them (a free call, a refusal before admission). */
export function peekRateLimits(scope: string, limits: RateLimits): RateLimitState {
  const state: RateLimitState = {};
  if (limits.rpm !== null) state.requests = stateOf(rateWindows().peek(`rpm:${scope}`, limits.rpm));
  if (limits.tpm !== null) state.tokens = stateOf(rateWindows().peek(`tpm:${scope}`, limits.tpm));
  return state;
}

/**
 * Lets a call of `scope` through its limits or throws 429. `tokens` is the most it can use
 * (0 for calls not counted in tokens). The windows' state after it is written into `state`.
 */
export async function passRateLimits(scope: string, limits: RateLimits, tokens: number, state: RateLimitState): Promise<RateTicket> {
  if (limits.rpm === null && limits.tpm === null && limits.concurrency === null) return NOTHING;
  const windows = rateWindows();
  const now = Date.now();
  const start = now - (now % WINDOW_MS);
  let slot: Slot | null = null;
  if (limits.concurrency !== null) {
    const got = await concurrencySlots().acquire(scope, limits.concurrency);
    if (!got.slot) refuse(`Too many concurrent requests: the limit is ${limits.concurrency} at a time. Retry when one has finished.`, 1000);
    slot = got.slot;
  }
  try {
    if (limits.rpm !== null) {
      const a = await windows.take(`rpm:${scope}`, limits.rpm, 1, now);
      state.requests = stateOf(a);
      if (!a.ok) refuse(`Rate limit reached: ${limits.rpm} requests per minute. Retry after the reset.`, a.resetMs);
    }
    if (limits.tpm !== null) {
      const a = await windows.take(`tpm:${scope}`, limits.tpm, tokens, now);
      state.tokens = stateOf(a);
      if (!a.ok) {
        if (limits.rpm !== null) windows.giveBack(`rpm:${scope}`, start, 1);
        const tooBig = tokens > limits.tpm;
        refuse(
          tooBig
            ? `Request too large: it may use up to ${tokens} tokens (its input and max_tokens), over the limit of ${limits.tpm} tokens per minute. Lower max_tokens or the input.`
            : `Rate limit reached: ${limits.tpm} tokens per minute (this request may use up to ${tokens}). Retry after the reset.`,
          a.resetMs,
        );
      }
    }
  } catch (err) {
    slot?.release();
    throw err;
  }
  let settled = false;
  return {
    settle: (used) => {
      if (settled || limits.tpm === null) return;
      settled = true;
      windows.giveBack(`tpm:${scope}`, start, tokens - Math.max(0, Math.min(tokens, Math.floor(used))));
    },
    release: () => slot?.release(),
  };
}
