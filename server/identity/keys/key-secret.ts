// API key secrets: `sk-gw-` followed by 40 base62 characters. Only the sha256 hash is stored;
// the first 12 characters are kept as a visible prefix so people can tell keys apart.
import { hash } from "node:crypto";
import { randomBase62 } from "../../kernel/ids";

const PREFIX = "sk-gw-";
const BODY_LENGTH = 40;
const VISIBLE = 12;
const SHAPE = new RegExp(`^${PREFIX}[0-9A-Za-z]{${BODY_LENGTH}}$`);

export type NewKeySecret = { secret: string; hash: string; prefix: string };

/** Hashed on every call: the one-shot `hash` costs a third of a Hash object's create, update and digest. */
export function hashKey(secret: string): string {
  return hash("sha256", secret, "hex");
}

export function generateKeySecret(): NewKeySecret {
  const secret = PREFIX + randomBase62(BODY_LENGTH);
  return { secret, hash: hashKey(secret), prefix: secret.slice(0, VISIBLE) };
}

/** A cheap shape check that spares the cache and the database from garbage credentials. */
export function isWellFormedKey(secret: string): boolean {
  return SHAPE.test(secret);
}
