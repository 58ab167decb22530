// The gateway's keys for signing session tokens (ES256). The newest key that is not retired
// signs; every key is published at /.well-known/jwks.json until the tokens it may have signed
// have expired. Private keys are stored sealed with the gateway secret. Both sets are cached and
// dropped on every instance by NOTIFY when a key is added or retired.
import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { db } from "../../infra/db/client";
import { FreshCache, Channel } from "../../infra/cache/fresh-cache";
import { notify } from "../../infra/db/notify";
import { open, seal } from "../../infra/secret-box";
import { randomBase62 } from "../../kernel/ids";

export const SIGNING_ALGORITHM = "ES256";

type KeyLike = CryptoKey | Uint8Array;
export type SigningKey = { kid: string; privateKey: KeyLike };
export type PublishedKeys = { jwks: { keys: JWK[] }; byKid: ReadonlyMap<string, KeyLike> };

const CACHE = { maxAgeMs: 60_000, refreshMs: 30_000 };

async function loadSigner(): Promise<SigningKey | null> {
  const row = await db.signingKey.findFirst({ where: { retiredAt: null }, orderBy: { createdAt: "desc" } });
  if (!row) return null;
  return { kid: row.kid, privateKey: (await importJWK(JSON.parse(open(row.privateKey)) as JWK, SIGNING_ALGORITHM)) as KeyLike };
}

async function loadPublished(): Promise<PublishedKeys> {
  const rows = await db.signingKey.findMany({
    where: { OR: [{ retiredAt: null }, { publishedUntil: { gt: new Date() } }] },
    orderBy: { createdAt: "desc" },
  });
  const keys = rows.map((r) => r.publicJwk as JWK);
  const byKid = new Map<string, KeyLike>();
  for (const jwk of keys) byKid.set(jwk.kid!, (await importJWK(jwk, SIGNING_ALGORITHM)) as KeyLike);
  return { jwks: { keys }, byKid };
}

const signers = new FreshCache<SigningKey | null>({ name: "signing key", load: loadSigner, channel: Channel.signingKeysChanged, ...CACHE });
const published = new FreshCache<PublishedKeys>({ name: "published keys", load: loadPublished, channel: Channel.signingKeysChanged, ...CACHE });

async function newKeyRow(): Promise<{ kid: string; publicJwk: JWK; privateKey: string }> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const kid = `gw-${new Date().toISOString().slice(0, 10)}-${randomBase62(8)}`;
  const pub = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALGORITHM, use: "sig" };
  const priv = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALGORITHM };
  return { kid, publicJwk: pub, privateKey: seal(JSON.stringify(priv)) };
}

/** The key that signs new tokens; made on first use (one instance makes it, under a lock). */
export async function currentSigner(): Promise<SigningKey> {
  const cached = await signers.get("current");
  if (cached) return cached;
  const row = await newKeyRow();
  await db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('gateway signing key'))`;
    if (await tx.signingKey.count({ where: { retiredAt: null } })) return;
    await tx.signingKey.create({ data: { kid: row.kid, algorithm: SIGNING_ALGORITHM, publicJwk: row.publicJwk as object, privateKey: row.privateKey } });
    await notify(tx, Channel.signingKeysChanged, "*");
  });
  signers.evict("*");
  published.evict("*");
  const made = await signers.get("current");
  if (!made) throw new Error("no signing key after creating one");
  return made;
}

export function publishedKeys(): Promise<PublishedKeys> {
  return published.get("all");
}

/**
 * Makes a new signing key and retires the current one, which stays published until the last
 * session token alive now has expired (tokens are never longer-lived than that).
 */
export async function rotateSigningKey(): Promise<{ kid: string; retired: { kid: string; published_until: number }[] }> {
  const row = await newKeyRow();
  const retired = await db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('gateway signing key'))`;
    const now = new Date();
    const last = await tx.planSession.aggregate({ _max: { expiresAt: true }, where: { expiresAt: { gt: now } } });
    const until = last._max.expiresAt && last._max.expiresAt > now ? last._max.expiresAt : now;
    const old = await tx.signingKey.findMany({ where: { retiredAt: null }, select: { kid: true } });
    await tx.signingKey.updateMany({ where: { retiredAt: null }, data: { retiredAt: now, publishedUntil: until } });
    await tx.signingKey.create({ data: { kid: row.kid, algorithm: SIGNING_ALGORITHM, publicJwk: row.publicJwk as object, privateKey: row.privateKey } });
    await notify(tx, Channel.signingKeysChanged, "*");
    return old.map((k) => ({ kid: k.kid, published_until: Math.ceil(until.getTime() / 1000) }));
  });
  signers.evict("*");
  published.evict("*");
  return { kid: row.kid, retired };
}

/** The public keys as a JWK Set (GET /.well-known/jwks.json). */
export async function jwks(): Promise<{ keys: JWK[] }> {
  await currentSigner(); // so a fresh install publishes the key its first token will use
  return (await publishedKeys()).jwks;
}
