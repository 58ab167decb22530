// Sign-ins under way, one row each, single use and ten minutes long: an OIDC request (keyed by
// the hash of its state, holding the sealed PKCE verifier and the nonce) and a SAML AuthnRequest
// (keyed by its ID, kept for the SAML library through its cache-provider interface, so that an
// answer must be to a request this gateway sent, once).
import { createHash } from "node:crypto";
import type { CacheProvider } from "@node-saml/node-saml";
import { db } from "../../infra/db/client";
import { open, seal } from "../../infra/secret-box";

export const REQUEST_TTL_MS = 10 * 60_000;

const stateKey = (state: string) => `oidc:${createHash("sha256").update(state).digest("hex")}`;

export async function saveOidcRequest(connectionId: string, r: { state: string; nonce: string; codeVerifier: string; callbackUrl: string }): Promise<void> {
  await purgeExpired();
  await db.ssoLoginRequest.create({
    data: {
      id: stateKey(r.state),
      connectionId,
      codeVerifier: seal(r.codeVerifier),
      nonce: r.nonce,
      callbackUrl: r.callbackUrl,
      expiresAt: new Date(Date.now() + REQUEST_TTL_MS),
    },
  });
}

/** Takes (deletes) the request of this state: a second callback with the same state finds nothing. */
export async function takeOidcRequest(connectionId: string, state: string): Promise<{ nonce: string; codeVerifier: string; callbackUrl: string } | null> {
  const rows = await db.$queryRaw<{ nonce: string | null; codeVerifier: string | null; callbackUrl: string }[]>`
    DELETE FROM "SsoLoginRequest" WHERE id = ${stateKey(state)} AND "connectionId" = ${connectionId} AND "expiresAt" > now()
    RETURNING nonce, "codeVerifier", "callbackUrl"`;
  const row = rows[0];
  if (!row?.nonce || !row.codeVerifier) return null;
  return { nonce: row.nonce, codeVerifier: open(row.codeVerifier), callbackUrl: row.callbackUrl };
}

/** The SAML library's request cache, on the database (every gateway instance sees each request). */
export function samlRequestCache(connectionId: string): CacheProvider {
  const id = (key: string) => `saml:${connectionId}:${key}`;
  return {
    async saveAsync(key, value) {
      await purgeExpired();
      const createdAt = Date.now();
      const { count } = await db.ssoLoginRequest.createMany({
        data: [{ id: id(key), connectionId, value, callbackUrl: "", expiresAt: new Date(createdAt + REQUEST_TTL_MS) }],
        skipDuplicates: true,
      });
      return count ? { value, createdAt } : null;
    },
    async getAsync(key) {
      const row = await db.ssoLoginRequest.findFirst({ where: { id: id(key), expiresAt: { gt: new Date() } }, select: { value: true } });
      return row?.value ?? null;
    },
    async removeAsync(key) {
      if (!key) return null;
      const rows = await db.$queryRaw<{ value: string | null }[]>`DELETE FROM "SsoLoginRequest" WHERE id = ${id(key)} RETURNING value`;
      return rows[0]?.value ?? null;
    },
  };
}

let lastPurge = 0;
/** Drops expired requests, replay-cache entries and tickets now and then (at most once a minute per process). */
async function purgeExpired(): Promise<void> {
  if (Date.now() - lastPurge < 60_000) return;
  lastPurge = Date.now();
  const now = new Date();
  await db.ssoLoginRequest.deleteMany({ where: { expiresAt: { lt: now } } });
  await db.samlAssertionSeen.deleteMany({ where: { expiresAt: { lt: now } } });
  await db.ssoTicket.deleteMany({ where: { expiresAt: { lt: now } } });
}
