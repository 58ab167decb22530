import { randomFillSync } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Random bytes are drawn from a pool refilled 4 KiB at a time: an id per request then costs no
// call into the CSPRNG of its own. Each byte is used once.
const pool = Buffer.alloc(4096);
let offset = pool.length;

function randomByte(): number {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++]!;
}

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export type IdPrefix = "ws" | "key" | "plan" | "sess" | "iss" | "node" | "req" | "cred" | "inv" | "resp" | "msg" | "chatcmpl" | "video" | "x402pay" | "gr" | "mcps" | "mcpsess" | "mcpl" | "mcp" | "mcpr" | "ssoc" | "ssod" | "scimt" | "scimg" | "role" | "ftjob" | "ftevent" | "ftckpt";

/** Ids written with a dash, as OpenAI writes them (`video-…`, `ftjob-…`). */
const DASHED: ReadonlySet<IdPrefix> = new Set(["video", "ftjob", "ftevent", "ftckpt"]);

/** Prefixed ids, e.g. `ws_3fK9...`; video jobs use `video-` as the API reference requires. */
export function newId(prefix: IdPrefix, length = 24): string {
  return `${prefix}${DASHED.has(prefix) ? "-" : "_"}${randomBase62(length)}`;
}

/** The id a request is answered under (`x-request-id`). */
export const newRequestId = (): string => newId("req");
