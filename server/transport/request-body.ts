// Request bodies, read as streams with a byte limit so an oversized body is refused (413)
// without being buffered whole.
import type { Readable } from "node:stream";
import { GatewayError } from "../kernel/errors";

function tooLarge(limit: number): GatewayError {
  return new GatewayError({
    status: 413,
    code: "request_too_large",
    message: `The request body exceeds the limit of ${limit} bytes.`,
  });
}

/**
 * The body at once when node:http already holds all of it (it came with the head, as small
 * bodies do) and nothing read it yet: no flowing mode, events and ticks for one chunk.
 */
function received(body: Readable, limit: number, declaredLength: string | undefined): Buffer | null {
  const declared = Number(declaredLength ?? NaN);
  if (!(declared > 0) || declared > limit || body.readableFlowing !== null || body.readableObjectMode || body.readableLength !== declared) return null;
  const whole = body.read() as Buffer;
  body.resume(); // so that the stream ends as one read in full does
  return whole;
}

/**
 * Reads a body up to `limit` bytes. Over the limit, the rest is read and dropped rather than the
 * stream being torn down, so that the client, still sending, gets the 413 (and a host that
 * feeds the stream, like Next.js, is not left writing into a closed one).
 */
export function readBodyBytes(body: Readable, limit: number, declaredLength?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (Number(declaredLength ?? NaN) > limit) {
      body.resume();
      return reject(tooLarge(limit));
    }
    const whole = received(body, limit, declaredLength);
    if (whole) return resolve(whole);
    const chunks: Buffer[] = [];
    let total = 0;
    let failed = false;
    body.on("data", (chunk: Buffer) => {
      if (failed) return;
      total += chunk.byteLength;
      if (total <= limit) return void chunks.push(chunk);
      failed = true;
      chunks.length = 0;
      reject(tooLarge(limit));
    });
    body.once("end", () => failed || resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)));
    body.once("error", () => {
      if (failed) return;
      failed = true;
      reject(new GatewayError({ status: 400, code: "invalid_request", message: "The request body could not be read (the connection broke off)." }));
    });
  });
}

export function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new GatewayError({
      status: 400,
      code: "invalid_json",
      message:
        "We could not parse the JSON body of your request. The body must be valid JSON and sent with Content-Type: application/json.",
    });
  }
}
