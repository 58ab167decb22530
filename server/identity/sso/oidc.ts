// Signing in through an OpenID Connect provider with openid-client: discovery (when a connection is
// set, and again when the cached configuration is older than ten minutes or the connection
// changed), the authorization URL with state, nonce and PKCE, and the code exchange that checks
// them. Every request the library makes goes through the outbound guard (its fetch is replaced).
import type * as Oidc from "openid-client";
import { guardedFetch, OutboundError } from "../../infra/net/outbound-guard";
import { assertOutboundUrlAllowed, envPolicy, urlRefusal } from "../../infra/net/outbound-policy";
import { GatewayError, errors } from "../../kernel/errors";

export type OidcSettings = { id?: string; issuer: string; clientId: string; clientSecret: string; updatedAt?: Date };

const lib = () => import("openid-client");

const oidcFetch: Oidc.CustomFetch = (url, o) =>
  guardedFetch(url, {
    method: o.method,
    headers: o.headers as HeadersInit,
    body: o.body instanceof URLSearchParams ? o.body.toString() : (o.body as string | undefined),
    signal: o.signal ?? undefined,
  });

/** Plain http only where the outbound policy allows it (the operator's OUTBOUND_ALLOW hosts, i.e. tests). */
function insecureAllowed(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === "http:" && urlRefusal(url, envPolicy) === null;
}

const discoveryFailed = (why: string) =>
  errors.invalidRequest(`The OpenID provider's configuration could not be read: ${why}.`, "issuer", "sso_discovery_failed");

/** Discovers the provider (a 400 that says why when it cannot). */
export async function discover(s: OidcSettings): Promise<Oidc.Configuration> {
  assertOutboundUrlAllowed(s.issuer, "issuer");
  const client = await lib();
  try {
    const config = await client.discovery(new URL(s.issuer), s.clientId, { client_secret: s.clientSecret }, client.ClientSecretPost(s.clientSecret), {
      [client.customFetch]: oidcFetch,
      ...(insecureAllowed(s.issuer) ? { execute: [client.allowInsecureRequests] } : {}),
    });
    config[client.customFetch] = oidcFetch;
    return config;
  } catch (err) {
    if (err instanceof OutboundError) throw discoveryFailed(err.reason);
    if (err instanceof GatewayError) throw err;
    throw discoveryFailed((err as Error).message);
  }
}

const TTL_MS = 10 * 60_000;
const configs = new Map<string, { config: Promise<Oidc.Configuration>; at: number }>();

/** The connection's configuration, kept ten minutes; a changed connection (updatedAt) is discovered again. */
function configFor(s: Required<OidcSettings>): Promise<Oidc.Configuration> {
  const key = `${s.id}:${s.updatedAt.getTime()}`;
  const hit = configs.get(key);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.config;
  for (const k of configs.keys()) if (k.startsWith(`${s.id}:`)) configs.delete(k);
  if (configs.size > 1000) configs.clear();
  const config = discover(s);
  configs.set(key, { config, at: Date.now() });
  config.catch(() => configs.delete(key));
  return config;
}

export type OidcStart = { url: string; state: string; nonce: string; codeVerifier: string };

export async function oidcAuthorizationUrl(s: Required<OidcSettings>, redirectUri: string, loginHint: string | null): Promise<OidcStart> {
  const client = await lib();
  const config = await configFor(s);
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "openid email profile",
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    nonce,
    ...(loginHint ? { login_hint: loginHint } : {}),
  });
  return { url: url.href, state, nonce, codeVerifier };
}

export type OidcIdentity = { subject: string; email: string | null; emailVerified: boolean | null; name: string | null };

const refused = (why: string) => new GatewayError({ status: 400, code: "sso_failed", message: `Single sign-on failed: ${why}.` });

/** Exchanges the code (checking state, nonce and PKCE) and reads who signed in, from the ID token and, without an email there, userinfo. */
export async function oidcCallback(
  s: Required<OidcSettings>,
  currentUrl: URL,
  expected: { state: string; nonce: string; codeVerifier: string },
): Promise<OidcIdentity> {
  const client = await lib();
  const config = await configFor(s);
  try {
    const tokens = await client.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: expected.codeVerifier,
      expectedState: expected.state,
      expectedNonce: expected.nonce,
      idTokenExpected: true,
    });
    let claims: Record<string, unknown> = { ...tokens.claims()! };
    if (typeof claims.email !== "string") claims = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))) };
    return {
      subject: String(claims.sub),
      email: typeof claims.email === "string" ? claims.email : null,
      emailVerified: typeof claims.email_verified === "boolean" ? claims.email_verified : null,
      name: typeof claims.name === "string" ? claims.name : null,
    };
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    const e = err as Error & { error?: string; error_description?: string };
    if (e.error) throw refused(`the provider answered ${e.error}${e.error_description ? ` (${e.error_description})` : ""}`);
    // openid-client wraps the precise reason (e.g. 'unexpected ID Token "nonce" claim value') as the cause.
    throw refused(e.cause instanceof Error ? e.cause.message : e.message);
  }
}
