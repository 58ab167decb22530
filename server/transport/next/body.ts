// Request bodies, read as streams with a byte limit so an oversized body is refused (413)
// without being buffered whole.
import { GatewayError } from "../../kernel/errors";
import { env } from "../../infra/env";

function tooLarge(limit: number): GatewayError {
  return new GatewayError({
    status: 413,
    code: "request_too_large",
    message: `The request body exceeds the limit of ${limit} bytes.`,
  });
}

export async function readBodyBytes(req: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > limit) throw tooLarge(limit);
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export async function readJsonBody(req: Request, limit = env.MAX_JSON_BODY_BYTES): Promise<unknown> {
  return parseJson(await readBodyBytes(req, limit));
}

export function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new GatewayError({
      status: 400,
      code: "invalid_json",
      message:
        "We could not parse the JSON body of your request. The body must be valid JSON and sent with Content-Type: application/json.",
    });
  }
}
