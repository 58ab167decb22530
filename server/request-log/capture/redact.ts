// What of a body is kept: secrets are replaced by [redacted] (well-known key and token shapes, the
// values of fields named like credentials, and the workspace's own patterns), and media (data
// URLs, long base64 strings, uploaded files) is kept as a reference, not as its bytes.
import type { RE2JS } from "re2js";

export const REDACTED = "[redacted]";

/** Well-known secret shapes; fixed expressions, each linear on any text. */
export const SECRET_SHAPES: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic and this gateway's API keys
  /\bBearer\s+[A-Za-z0-9._~+/-]{15,}[A-Za-z0-9_~+/-]=*/gi, // (not the sentence's full stop after it)
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWTs (session tokens)
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[^-]*-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bgh[pousr]_[A-Za-z0-9]{36,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{40,}/g,
  /\bAIza[0-9A-Za-z_-]{35}/g, // Google API keys
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g, // Stripe keys
];

/** Fields whose value is a credential whatever it looks like. */
const SECRET_FIELD = /^(?:authorization|x-api-key|api[-_]?key|apikey|password|passwd|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|private[-_]?key|session[-_]?token)$/i;

const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)?[^,]{0,200},/i;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
/** Shorter strings are kept as they are, base64 or not. */
const MEDIA_MIN_CHARS = 1024;

const mediaRef = (kind: string, bytes: number) => `[media ${kind}, ${bytes} bytes, not kept]`;

/** A string as kept: a media reference, or the text with its secrets replaced. */
function keepString(value: string, patterns: readonly RE2JS[]): string {
  if (value.length >= MEDIA_MIN_CHARS) {
    const data = DATA_URL.exec(value);
    if (data) return mediaRef(data[1] ?? "data", Math.floor(((value.length - data[0].length) * 3) / 4));
    if (BASE64.test(value)) return mediaRef("base64", Math.floor((value.length * 3) / 4));
  }
  let out = value;
  for (const shape of SECRET_SHAPES) out = out.replace(shape, REDACTED);
  for (const p of patterns) out = p.matcher(out).replaceAll(REDACTED);
  return out;
}

/** An uploaded file (a multipart body's part): its name, type and size. */
function isUpload(value: object): value is { filename: string; contentType: string; data: Buffer } {
  return "data" in value && Buffer.isBuffer((value as { data: unknown }).data);
}

/** A JSON-able copy of `value` with its secrets redacted and its media replaced by references. */
export function redact(value: unknown, patterns: readonly RE2JS[]): unknown {
  if (typeof value === "string") return keepString(value, patterns);
  if (value === null || typeof value !== "object") return value;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return mediaRef("binary", value.byteLength);
  if (Array.isArray(value)) return value.map((v) => redact(v, patterns));
  if (isUpload(value)) return { filename: value.filename, content_type: value.contentType, bytes: value.data.byteLength, kept: false };
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = SECRET_FIELD.test(key) && v !== null && v !== "" ? REDACTED : redact(v, patterns);
  }
  return out;
}

/** A text body (not JSON: a stream cut short, plain text) with its secrets redacted. */
export const redactText = keepString;
