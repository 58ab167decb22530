// The single sign-on routes under /api/sso (thin route files call these): start a sign-in, the
// OIDC callback, the SAML ACS and the SP metadata. After the protocol checks, the person is
// provisioned and handed a single-use ticket in an httpOnly cookie for /sso/complete, where
// next-auth's "sso" provider redeems it and writes its own session cookie.
import { db } from "../../infra/db/client";
import { logFor } from "../../infra/telemetry/log";
import { errorBody } from "../../kernel/error-body";
import { errors, GatewayError } from "../../kernel/errors";
import { connectionForDomain, loadConnection } from "../../identity/sso/connections";
import { saveOidcRequest, takeOidcRequest } from "../../identity/sso/login-requests";
import { oidcAuthorizationUrl, oidcCallback } from "../../identity/sso/oidc";
import { provisionTx, type SsoIdentity } from "../../identity/sso/provision";
import { samlAcs, samlAuthorizeUrl, samlFor, samlServiceProviderMetadata } from "../../identity/sso/saml";
import { configuredOrigin, ssoUrls } from "../../identity/sso/sso-urls";
import { issueTicketTx } from "../../identity/sso/tickets";
import { open } from "../../infra/secret-box";
import { domainOf } from "../../identity/users/sso-required";
import type { IncomingCall } from "../call";
import { publicOrigin } from "../origin";

const log = logFor("sso");

/**
 * Where a sign-in may go afterwards: only a path on this site (app/(auth)/callback-path.ts, which
 * the route files pass in: nothing under server/ imports app/).
 */
export type SafePath = (raw: string | undefined) => string;
const STATE_COOKIE = "gw_sso_state";
const TICKET_COOKIE = "gw_sso_ticket";

/** NEXTAUTH_URL, else PUBLIC_BASE_URL, else the origin the request came to (behind a trusted proxy, its forwarded host). */
function originOf(req: Request): string {
  const url = new URL(req.url);
  return configuredOrigin() ?? publicOrigin({ header: (n: string) => req.headers.get(n) ?? undefined, selfOrigin: () => url.origin } as unknown as IncomingCall);
}

function cookie(name: string, value: string, path: string, maxAge: number, secure: boolean): string {
  return `${name}=${value}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

function readCookie(req: Request, name: string): string | null {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}

const redirect = (location: string, cookies: string[] = []) => {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A refusal: JSON in the API's error shape, or a short page with a way back for a browser. */
function failure(req: Request, err: unknown): Response {
  const e = err instanceof GatewayError ? err : new GatewayError({ status: 500, code: "sso_error", message: "Single sign-on failed. Try again.", cause: err });
  if (!(err instanceof GatewayError)) log.error({ err }, "single sign-on failed");
  else log.warn({ code: e.code, message: e.message }, "single sign-on refused");
  if ((req.headers.get("accept") ?? "").includes("text/html")) {
    const html = `<!doctype html><meta charset="utf-8"><title>Single sign-on failed</title><body style="font-family:sans-serif;max-width:40rem;margin:4rem auto"><h1>Single sign-on failed</h1><p>${escapeHtml(e.message)}</p><p><a href="/signin">Back to sign-in</a></p></body>`;
    return new Response(html, { status: e.status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
  }
  return Response.json(errorBody(e), { status: e.status, headers: { "cache-control": "no-store" } });
}

const signInError = (code: string) => `/signin?error=${code}`;

/** GET ?connection=ssoc_… or POST (the sign-in form) with `email`; both with an optional callbackUrl. */
export async function startSso(req: Request, callbackPath: SafePath): Promise<Response> {
  const url = new URL(req.url);
  const form = req.method === "POST" ? await req.formData().catch(() => null) : null;
  const field = (name: string) => {
    const v = form?.get(name) ?? url.searchParams.get(name);
    return typeof v === "string" ? v.trim() : "";
  };
  const next = callbackPath(field("callbackUrl") || undefined);
  const email = field("email").toLowerCase();
  const connectionId = field("connection");
  try {
    const target = connectionId ? { id: connectionId } : email.includes("@") ? await connectionForDomain(domainOf(email)) : null;
    const conn = target ? await loadConnection(target.id) : null;
    if (!conn) return redirect(signInError("SsoNotConfigured"));
    const origin = originOf(req);
    const secure = origin.startsWith("https:");
    if (conn.kind === "saml") return redirect(await samlAuthorizeUrl(conn, origin, next));
    const start = await oidcAuthorizationUrl(oidcSettings(conn), ssoUrls(origin, conn.id).oidc_redirect_uri, email || null);
    await saveOidcRequest(conn.id, { state: start.state, nonce: start.nonce, codeVerifier: start.codeVerifier, callbackUrl: next });
    return redirect(start.url, [cookie(STATE_COOKIE, start.state, "/api/sso", 600, secure)]);
  } catch (err) {
    log.error({ err, connectionId }, "single sign-on could not start");
    return redirect(signInError("SsoFailed"));
  }
}

type Conn = NonNullable<Awaited<ReturnType<typeof loadConnection>>>;

function oidcSettings(conn: Conn) {
  return { id: conn.id, issuer: conn.oidcIssuer!, clientId: conn.oidcClientId!, clientSecret: open(conn.oidcClientSecret!), updatedAt: conn.updatedAt };
}

async function connectionOfKind(id: string, kind: "oidc" | "saml"): Promise<Conn> {
  const conn = await loadConnection(id);
  if (!conn || conn.kind !== kind) throw errors.notFound(`No ${kind.toUpperCase()} single sign-on connection ${id}.`, "sso_not_configured");
  return conn;
}

/** Provisions the person and issues the ticket (with `inTx`, e.g. the SAML replay check, in the same transaction), then sends the browser to /sso/complete. */
async function complete(req: Request, conn: Conn, who: SsoIdentity, next: string, inTx?: (tx: Parameters<Parameters<typeof db.$transaction>[0]>[0]) => Promise<void>): Promise<Response> {
  const ticket = await db.$transaction(async (tx) => {
    await inTx?.(tx);
    const { userId } = await provisionTx(tx, conn, who);
    return issueTicketTx(tx, userId, conn.id);
  });
  const secure = originOf(req).startsWith("https:");
  return redirect(`/sso/complete?callbackUrl=${encodeURIComponent(next)}`, [
    cookie(TICKET_COOKIE, ticket, "/sso/complete", 60, secure),
    cookie(STATE_COOKIE, "", "/api/sso", 0, secure),
  ]);
}

export async function oidcCallbackRoute(req: Request, connectionId: string): Promise<Response> {
  try {
    const conn = await connectionOfKind(connectionId, "oidc");
    const url = new URL(req.url);
    const state = url.searchParams.get("state") ?? "";
    // Login CSRF: the answer must come back to the browser that started this sign-in.
    if (!state || readCookie(req, STATE_COOKIE) !== state) {
      throw new GatewayError({ status: 400, code: "sso_state_mismatch", message: "This sign-in was not started in this browser. Start it again." });
    }
    const started = await takeOidcRequest(conn.id, state);
    if (!started) throw new GatewayError({ status: 400, code: "sso_state_unknown", message: "This sign-in has expired or was already used. Start it again." });
    // The URL as registered at the provider, not as this request's Host says (a proxy may differ).
    const currentUrl = new URL(`${ssoUrls(originOf(req), conn.id).oidc_redirect_uri}${url.search}`);
    const who = await oidcCallback(oidcSettings(conn), currentUrl, { ...started, state });
    return await complete(req, conn, who, started.callbackUrl);
  } catch (err) {
    return failure(req, err);
  }
}

export async function samlAcsRoute(req: Request, connectionId: string, callbackPath: SafePath): Promise<Response> {
  try {
    const conn = await connectionOfKind(connectionId, "saml");
    const form = await req.formData().catch(() => null);
    const response = form?.get("SAMLResponse");
    const relay = form?.get("RelayState");
    if (typeof response !== "string" || !response) throw errors.invalidRequest("The POST carries no SAMLResponse.", "SAMLResponse", "saml_invalid");
    const answer = await samlAcs(conn, originOf(req), { SAMLResponse: response, RelayState: typeof relay === "string" ? relay : undefined });
    const next = callbackPath(typeof relay === "string" && relay ? relay : undefined);
    return await complete(req, conn, { subject: answer.subject, email: answer.email, name: answer.name }, next, async (tx) => {
      const inserted = await tx.$executeRaw`
        INSERT INTO "SamlAssertionSeen" ("connectionId", "assertionId", "expiresAt") VALUES (${conn.id}, ${answer.assertionId}, ${answer.replayExpiresAt})
        ON CONFLICT DO NOTHING`;
      if (!inserted) throw new GatewayError({ status: 400, code: "saml_replayed", message: "This SAML answer was already used. Sign in again." });
    });
  } catch (err) {
    return failure(req, err);
  }
}

export async function samlMetadataRoute(req: Request, connectionId: string): Promise<Response> {
  try {
    const conn = await connectionOfKind(connectionId, "saml");
    const xml = samlServiceProviderMetadata(await samlFor(conn, originOf(req)));
    return new Response(xml, { headers: { "content-type": "application/samlmetadata+xml; charset=utf-8" } });
  } catch (err) {
    return failure(req, err);
  }
}
