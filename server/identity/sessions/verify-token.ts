// Session tokens as credentials: a JWT signed by the gateway (a key of its JWKS, by `kid`) or by
// an OIDC issuer the workspace trusts. A verified token is remembered by its exact text until it
// expires, so a warm token costs a map lookup, not a signature check; its session's revocation is
// checked on every call, from a cache that NOTIFY keeps right on every instance.
import { createRemoteJWKSet, customFetch, decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, type FetchImplementation, type JWTPayload } from "jose";
import { boundedLru } from "../../infra/cache/bounded-lru";
import { db } from "../../infra/db/client";
import { FreshCache, Channel } from "../../infra/cache/fresh-cache";
import { env } from "../../infra/env";
import { guardedFetch, OutboundError } from "../../infra/net/outbound-guard";
import { errors, GatewayError } from "../../kernel/errors";
import { rulesWithPlan, workspaceRules, type WorkspaceRules } from "../plans/plan-cache";
import type { KeyPermission } from "../keys/permissions";
import type { Principal } from "../principal";
import { CLAIMS } from "./session-schemas";
import { publishedKeys, SIGNING_ALGORITHM } from "./signing-keys";
import { issuersNamed, type TrustedIssuer } from "./trusted-issuers";

type SessionPrincipal = Extract<Principal, { kind: "session" }>;
/** `issuer`: the trusted issuer's id, for a token of an identity provider (its trust is checked on every call). */
type Verified = { principal: SessionPrincipal; expiresAt: number; issuer?: { id: string; iss: string } };
type SessionRow = { revoked: boolean; spendCap: string | null } | null;

const verified = boundedLru<string, Verified>(50_000);

const sessions = new FreshCache<SessionRow>({
  name: "sessions",
  load: async (id) => {
    const row = await db.planSession.findUnique({ where: { id }, select: { revokedAt: true, spendCap: true } });
    return row && { revoked: row.revokedAt !== null, spendCap: row.spendCap?.toString() ?? null };
  },
  channel: Channel.sessionChanged,
  maxAgeMs: env.KEY_CACHE_MAX_AGE_MS,
  refreshMs: env.KEY_CACHE_REFRESH_MS,
});

/**
 * A trusted issuer's JWKS URL is a tenant's choice, so it is fetched only through the outbound
 * guard; a refused or failed fetch fails the token (401), never falls back to a plain fetch.
 */
const jwksFetch: FetchImplementation = (url, options) =>
  guardedFetch(url, options).catch((err: unknown) => {
    const reason = err instanceof OutboundError ? err.reason : "the fetch failed";
    throw errors.invalidToken(`The keys of the session token's issuer could not be fetched from its JWKS URL: ${reason}.`);
  });

/** Remote JWKS of trusted issuers, one per URL (jose caches the keys and refetches on an unknown kid). */
const remoteSets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
function remoteSet(url: string): ReturnType<typeof createRemoteJWKSet> {
  let set = remoteSets.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(url), { timeoutDuration: env.OUTBOUND_TIMEOUT_MS, cooldownDuration: 30_000, [customFetch]: jwksFetch });
    remoteSets.set(url, set);
  }
  return set;
}

function asGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof joseErrors.JWTExpired) return errors.tokenExpired();
  if (err instanceof joseErrors.JWTClaimValidationFailed) return errors.invalidToken(`The session token's ${err.claim} claim is not valid: ${err.reason}.`);
  if (err instanceof joseErrors.JWKSNoMatchingKey) return errors.invalidToken("The session token was signed with a key (kid) its issuer does not publish.");
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return errors.invalidToken("The session token's signature is not valid.");
  if (err instanceof joseErrors.JOSEError) return errors.invalidToken(`The session token is not valid (${err.code}).`);
  return errors.invalidToken("The session token could not be verified.");
}

async function verifyOwn(token: string, key: CryptoKey | Uint8Array): Promise<Verified> {
  const { payload } = await jwtVerify(token, key, { issuer: env.SESSION_TOKEN_ISSUER, audience: env.SESSION_TOKEN_AUDIENCE, algorithms: [SIGNING_ALGORITHM], requiredClaims: ["exp", "jti", "sub"] });
  const workspaceId = payload[CLAIMS.workspace];
  const planId = payload[CLAIMS.plan];
  if (typeof workspaceId !== "string" || typeof planId !== "string") throw errors.invalidToken("The session token lacks its workspace or plan claim.");
  // A token minted by a restricted key carries that key's operation groups (mint-rules.ts); none: all.
  const groups = payload[CLAIMS.permissions];
  // Its models and tools are its plan's, which minting kept within the key's.
  const grant = Array.isArray(groups) ? { permissions: new Set(groups as KeyPermission[]), models: null, tools: null } : undefined;
  return {
    principal: { kind: "session", workspaceId, keyId: null, planId, subject: payload.sub!, sessionId: payload.jti!, spendCap: null, grant },
    expiresAt: payload.exp! * 1000,
  };
}

function claim(payload: JWTPayload, path: string): unknown {
  return path.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), payload);
}

async function verifyExternal(token: string, payload: JWTPayload): Promise<Verified> {
  const trusted: TrustedIssuer[] = payload.iss ? await issuersNamed(payload.iss) : [];
  const audiences = typeof payload.aud === "string" ? [payload.aud] : (payload.aud ?? []);
  const issuer = trusted.find((t) => audiences.includes(t.audience));
  if (!issuer) throw errors.invalidToken("The session token was not signed by the gateway (unknown kid) nor by an issuer and audience a workspace trusts.");
  const { payload: claims } = await jwtVerify(token, remoteSet(issuer.jwksUrl), { issuer: issuer.issuer, audience: issuer.audience, requiredClaims: ["exp"] });
  const subject = claim(claims, issuer.subjectClaim);
  if (typeof subject !== "string" || !subject) throw errors.invalidToken(`The token has no subject claim (${issuer.subjectClaim}).`);
  const named = claim(claims, issuer.planClaim);
  const find = (rules: WorkspaceRules) => (typeof named === "string" ? (rules.plans.get(named) ?? [...rules.plans.values()].find((p) => p.name === named)) : undefined);
  const plan = find(await workspaceRules(issuer.workspaceId)) ?? (typeof named === "string" ? find(await rulesWithPlan(issuer.workspaceId, named)) : undefined);
  const planId = plan?.id ?? (named === undefined ? issuer.defaultPlanId : null);
  if (!planId) throw errors.invalidToken(`The token's plan claim (${issuer.planClaim}) names no plan of the workspace.`);
  return {
    principal: { kind: "session", workspaceId: issuer.workspaceId, keyId: null, planId, subject, sessionId: null, spendCap: null },
    expiresAt: claims.exp! * 1000,
    issuer: { id: issuer.id, iss: issuer.issuer },
  };
}

async function verifyAnew(token: string): Promise<Verified> {
  let kid: string | undefined;
  let payload: JWTPayload;
  try {
    kid = decodeProtectedHeader(token).kid;
    payload = decodeJwt(token);
  } catch {
    throw errors.invalidToken("The session token is not a well-formed JWT.");
  }
  const own = kid ? (await publishedKeys()).byKid.get(kid) : undefined;
  return own ? verifyOwn(token, own) : verifyExternal(token, payload);
}

/** Resolves a session token to its principal, or throws 401 token_expired, invalid_token or token_revoked. */
export async function verifyToken(token: string): Promise<SessionPrincipal> {
  let v = verified.get(token);
  if (!v) {
    try {
      v = await verifyAnew(token);
    } catch (err) {
      throw asGatewayError(err);
    }
    verified.set(token, v);
  }
  if (v.expiresAt <= Date.now()) {
    verified.delete(token);
    throw errors.tokenExpired();
  }
  const p = v.principal;
  // The plan still exists (deleting a plan ends its sessions).
  if (!(await rulesWithPlan(p.workspaceId, p.planId)).plans.has(p.planId)) throw errors.tokenRevoked();
  if (v.issuer) {
    // The workspace may have stopped trusting the issuer since the token was verified.
    if (!(await issuersNamed(v.issuer.iss)).some((t) => t.id === v.issuer!.id)) {
      verified.delete(token);
      throw errors.invalidToken("The session token's issuer is no longer trusted by the workspace.");
    }
    return p;
  }
  if (p.sessionId === null) return p;
  const session = await sessions.get(p.sessionId);
  if (!session || session.revoked) throw errors.tokenRevoked();
  return session.spendCap === null ? p : { ...p, spendCap: session.spendCap };
}

/** For tests and tools. */
export function clearTokenCaches(): void {
  verified.clear();
  sessions.evict("*");
}
