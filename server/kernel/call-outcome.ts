// What a call produced beside its answer, as typed values: the state of the caller's rate limits,
// the receipt of an x402 payment, the durations of its phases. Stages below the transport set
// them on the call's context; the transports (node:http and Next) render them as headers and, for
// a stream whose headers went out first, as frames after its end. No service writes HTTP.
import type { SettleResponse } from "@x402/core/types";

/** One rate-limit window of the caller, as it stands after this call. */
export type RateWindowState = { limit: number; remaining: number; resetMs: number };

/** The caller's rate limits counted by requests and by tokens (either may be absent). */
export type RateLimitState = { requests?: RateWindowState; tokens?: RateWindowState };

/** An x402 payment settled for the call: the facilitator's answer, with the payer and the amount settled (atomic units). */
export type PaymentReceipt = SettleResponse & { payer: string; amount: string };

/** A phase of the call and how long it took (ms), reported to the client (Server-Timing). */
export type PhaseTiming = { phase: string; ms: number };

/** What the response cache did with the call: answered it, stored its answer, or was told not to look. */
export type CacheStatus = "hit" | "miss" | "bypass";

/** One attempt of a routed call: the target (model, and the node that served or failed it), how it ended, and how long it took. */
export type RouteAttempt = { model: string; node: string | null; status: number; error: string | null; ms: number };

/** A call to a route (a virtual model): the route, the target that answered (none when all failed), and every attempt. */
export type RoutingOutcome = { route: string; target: { model: string; node: string | null } | null; attempts: RouteAttempt[] };

/**
 * What one guardrail said of a call's input or output (server/guardrails/): passed, blocked,
 * redacted, flagged, or `error` when the check itself failed or timed out (then `on_error` decided:
 * `blocked` true when it blocked the call). `rule`: what matched (a PII kind, a pattern's index, a
 * category).
 */
export type GuardrailVerdict = {
  guardrail: string;
  type: string;
  stage: "input" | "output";
  outcome: "passed" | "blocked" | "redacted" | "flagged" | "error";
  rule: string | null;
  ms: number;
  blocked?: boolean;
  error?: string;
};

export type CallOutcome = {
  rateLimits?: RateLimitState;
  payment?: PaymentReceipt;
  timings?: PhaseTiming[];
  /** Set by the pipeline's cache stage on the routes it caches. */
  cache?: CacheStatus;
  /** The call's tags (its metadata's and its x-gateway-tags header's): on its usage event and its log row. */
  tags?: Record<string, string>;
  /** Set by the pipeline's route stage for a call that named a route. */
  routing?: RoutingOutcome;
  /** Set by the guardrails' stages: every verdict, in the order the guardrails ran. */
  guardrails?: GuardrailVerdict[];
};

/** Adds how long `phase` took since `since` (performance.now()). */
export function notePhase(outcome: CallOutcome, phase: string, since: number): void {
  (outcome.timings ??= []).push({ phase, ms: performance.now() - since });
}
