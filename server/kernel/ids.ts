import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export type IdPrefix = "ws" | "key" | "node" | "req" | "cred" | "inv" | "resp" | "msg" | "chatcmpl" | "video";

/** Prefixed ids, e.g. `ws_3fK9...`; video jobs use `video-` as the API reference requires. */
export function newId(prefix: IdPrefix, length = 24): string {
  return `${prefix}${prefix === "video" ? "-" : "_"}${randomBase62(length)}`;
}
