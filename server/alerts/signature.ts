// The signature of a webhook delivery, in Stripe's scheme: the header
//   x-gateway-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the webhook's secret>
// The timestamp is inside what is signed, so a receiver that refuses old timestamps refuses a
// replayed delivery too; several v1= values may appear (none today; kept for a secret rotation
// that signs with both). docs/ALERTS.md shows a receiver's check.
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-gateway-signature";

/** The hex HMAC-SHA256 of `<timestamp>.<body>`. */
export function signPayload(body: string, secret: string, timestamp: number): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

/** The `x-gateway-signature` value for `body` signed at `timestamp` (unix seconds, default now). */
export function signatureHeader(body: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${signPayload(body, secret, timestamp)}`;
}

export type Verification = { ok: true; timestamp: number } | { ok: false; reason: "malformed" | "too_old" | "mismatch" };

/**
 * A receiver's check of a delivery: the header is well formed, its timestamp is within
 * `toleranceSeconds` of now (against replays), and one of its v1 signatures is the HMAC of
 * `<t>.<body>` (compared in constant time). `body` must be the raw bytes received, not re-serialised JSON.
 */
export function verifySignature(body: string, header: string | null | undefined, secret: string, toleranceSeconds = 300, now = Date.now()): Verification {
  if (!header) return { ok: false, reason: "malformed" };
  const parts = header.split(",").map((p) => p.trim().split("=", 2) as [string, string?]);
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  const signatures = parts.filter(([k, v]) => k === "v1" && v && /^[0-9a-f]{64}$/.test(v)).map(([, v]) => v!);
  if (!Number.isSafeInteger(t) || !signatures.length) return { ok: false, reason: "malformed" };
  if (Math.abs(now / 1000 - t) > toleranceSeconds) return { ok: false, reason: "too_old" };
  const expected = Buffer.from(signPayload(body, secret, t), "hex");
  const ok = signatures.some((s) => timingSafeEqual(Buffer.from(s, "hex"), expected));
  return ok ? { ok: true, timestamp: t } : { ok: false, reason: "mismatch" };
}
