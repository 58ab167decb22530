// The rate limits of one call: concurrent requests, requests per minute and tokens per minute of
// its scope (a key, or a subject under a plan), from memory (rate-windows.ts,
// concurrency-slots.ts). The answer carries OpenAI's x-ratelimit-* headers; a refusal is a 429
// rate_limit_exceeded with retry-after.
import { errors } from "../kernel/errors";
import { ConcurrencySlots, type Slot } from "./concurrency-slots";
import { RateWindows, WINDOW_MS, type WindowAnswer } from "./rate-windows";

export type RateLimits = { rpm: number | null; tpm: number | null; concurrency: number | null };

/** A call let through: `settle` with the tokens it really used gives back the rest; `release` ends its concurrency slot. */
export type RateTicket = { settle(tokensUsed: number): void; release(): void };

const NOTHING: RateTicket = { settle: () => undefined, release: () => undefined };

const shared = globalThis as unknown as { gatewayRateWindows?: RateWindows; gatewayConcurrency?: ConcurrencySlots };
export const rateWindows = () => (shared.gatewayRateWindows ??= new RateWindows());
export const concurrencySlots = () => (shared.gatewayConcurrency ??= new ConcurrencySlots());

/** OpenAI's duration format: `20ms`, `6s`, `1m0s`. */
export function formatReset(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

function report(headers: Record<string, string>, kind: "requests" | "tokens", a: WindowAnswer): void {
  headers[`x-ratelimit-limit-${kind}`] = String(a.limit);
  headers[`x-ratelimit-remaining-${kind}`] = String(a.remaining);
  headers[`x-ratelimit-reset-${kind}`] = formatReset(a.resetMs);
}

function refuse(headers: Record<string, string>, message: string, retryMs: number): never {
  throw errors.rateLimited(message, { ...headers, "retry-after": String(Math.max(1, Math.ceil(retryMs / 1000))) });
}

/** The headers of a caller's limits on an answer that did not pass them (a free call, a refusal before admission). */
export function reportRateLimits(scope: string, limits: RateLimits, headers: Record<string, string>): void {
  if (limits.rpm !== null) report(headers, "requests", rateWindows().peek(`rpm:${scope}`, limits.rpm));
  if (limits.tpm !== null) report(headers, "tokens", rateWindows().peek(`tpm:${scope}`, limits.tpm));
}

/**
 * Lets a call of `scope` through its limits or throws 429. `tokens` is the most it can use
 * (0 for calls not counted in tokens). The rate-limit headers are written into `headers`.
 */
export async function passRateLimits(scope: string, limits: RateLimits, tokens: number, headers: Record<string, string>): Promise<RateTicket> {
  if (limits.rpm === null && limits.tpm === null && limits.concurrency === null) return NOTHING;
  const windows = rateWindows();
  const now = Date.now();
  const start = now - (now % WINDOW_MS);
  let slot: Slot | null = null;
  if (limits.concurrency !== null) {
    const got = await concurrencySlots().acquire(scope, limits.concurrency);
    if (!got.slot) refuse(headers, `Too many concurrent requests: the limit is ${limits.concurrency} at a time. Retry when one has finished.`, 1000);
    slot = got.slot;
  }
  try {
    if (limits.rpm !== null) {
      const a = await windows.take(`rpm:${scope}`, limits.rpm, 1, now);
      report(headers, "requests", a);
      if (!a.ok) refuse(headers, `Rate limit reached: ${limits.rpm} requests per minute. Retry after the reset.`, a.resetMs);
    }
    if (limits.tpm !== null) {
      const a = await windows.take(`tpm:${scope}`, limits.tpm, tokens, now);
      report(headers, "tokens", a);
      if (!a.ok) {
        if (limits.rpm !== null) windows.giveBack(`rpm:${scope}`, start, 1);
        const tooBig = tokens > limits.tpm;
        refuse(
          headers,
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
