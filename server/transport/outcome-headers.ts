// What a call's typed outcome and a refusal's detail stand for on the wire, for both hosts: the
// caller's rate limits (OpenAI's x-ratelimit-* headers), an x402 payment (PAYMENT-RESPONSE, or
// for a stream, whose headers went out first, a last `payment_response` event after its end),
// phase durations (Server-Timing), Retry-After, PAYMENT-REQUIRED and a 416's Content-Range.
import type { CallOutcome, RateWindowState } from "../kernel/call-outcome";
import type { ErrorDetail } from "../kernel/errors";
import type { ReplyHeaders } from "./call";

type X402Http = typeof import("@x402/core/http");
let x402Http: X402Http | undefined;

/**
 * Loads x402's header encoding, which an outcome with a payment or a refusal asking for one
 * needs (x402 is loaded by then: its admission made them); nothing else loads x402.
 */
export async function loadPaymentEncoding(outcome: CallOutcome | null, detail: ErrorDetail | null): Promise<void> {
  if (!x402Http && (outcome?.payment || detail?.paymentRequired)) x402Http = await import("@x402/core/http");
}

function encoding(): X402Http {
  if (!x402Http) throw new Error("x402 header encoding used before loadPaymentEncoding");
  return x402Http;
}

/** OpenAI's duration format: `20ms`, `6s`, `1m0s`. */
export function formatReset(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

function windowHeaders(headers: ReplyHeaders, kind: "requests" | "tokens", w: RateWindowState): void {
  headers[`x-ratelimit-limit-${kind}`] = String(w.limit);
  headers[`x-ratelimit-remaining-${kind}`] = String(w.remaining);
  headers[`x-ratelimit-reset-${kind}`] = formatReset(w.resetMs);
}

/** Adds the headers of a call's outcome to `headers`. */
export function addOutcomeHeaders(outcome: CallOutcome, headers: ReplyHeaders): void {
  const limits = outcome.rateLimits;
  if (limits?.requests) windowHeaders(headers, "requests", limits.requests);
  if (limits?.tokens) windowHeaders(headers, "tokens", limits.tokens);
  if (outcome.timings?.length) headers["server-timing"] = outcome.timings.map((t) => `${t.phase};dur=${t.ms.toFixed(1)}`).join(", ");
  if (outcome.payment) headers["payment-response"] = encoding().encodePaymentResponseHeader(outcome.payment);
}

/** The frames a stream ends with after its last event: the x402 payment settled when it was done. */
export function outcomeFrames(outcome: CallOutcome | undefined): string {
  return outcome?.payment ? `event: payment_response\ndata: ${JSON.stringify(outcome.payment)}\n\n` : "";
}

/** The headers a refusal's detail stands for. */
export function detailHeaders(detail: ErrorDetail): ReplyHeaders {
  const headers: ReplyHeaders = {};
  if (detail.retryAfter !== undefined) headers["retry-after"] = String(detail.retryAfter);
  if (detail.paymentRequired) headers["payment-required"] = encoding().encodePaymentRequiredHeader(detail.paymentRequired);
  if (detail.contentSize !== undefined) headers["content-range"] = `bytes */${detail.contentSize}`;
  if (detail.allow) headers.allow = detail.allow.join(", ");
  return headers;
}
