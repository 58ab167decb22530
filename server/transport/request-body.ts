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

export async function readBodyBytes(body: Readable, limit: number, declaredLength?: string): Promise<Buffer> {
  if (Number(declaredLength ?? NaN) > limit) {
    body.resume(); // read and drop what the client still sends, so it gets the answer
    throw tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > limit) {
      body.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
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
