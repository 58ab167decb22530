// Signed, expiring links to stored blobs, so a client can fetch an image without its API key.
// The signature is an HMAC-SHA256 over the key and expiry, under a key derived from the
// gateway's secret (GATEWAY_SECRET, or the one generated into DATA_DIR): every instance that
// shares the secret accepts the links the others made.
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "../env";
import { localSecret } from "../secret-box";

let signingKey: Buffer | undefined;

function key(): Buffer {
  signingKey ??= createHmac("sha256", env.GATEWAY_SECRET ?? localSecret()).update("gateway blob url v1").digest();
  return signingKey;
}

export function signature(blobKey: string, expires: number): string {
  return createHmac("sha256", key()).update(`${blobKey}\n${expires}`).digest("base64url");
}

/** Query string for a link to `blobKey` valid for `ttlSeconds`. */
export function signQuery(blobKey: string, ttlSeconds: number, now = Date.now()): { expires: number; signature: string } {
  const expires = Math.floor(now / 1000) + ttlSeconds;
  return { expires, signature: signature(blobKey, expires) };
}

export type LinkCheck = "ok" | "tampered" | "expired";

export function checkLink(blobKey: string, expires: number, sig: string, now = Date.now()): LinkCheck {
  const expected = Buffer.from(signature(blobKey, expires));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "tampered";
  return expires * 1000 < now ? "expired" : "ok";
}
