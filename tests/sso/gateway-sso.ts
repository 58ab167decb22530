// The gateway's side of a test single sign-on: start a sign-in, and redeem the ticket the
// callback or ACS left in its cookie at next-auth (as /sso/complete does in the browser), which
// answers the session cookie.
import { Jar, locationOf } from "./browser-jar";

/** GET /api/sso/start for a connection (or an e-mail): the identity provider's URL the gateway sends the browser to. */
export async function startSignIn(jar: Jar, baseUrl: string, by: { connection: string } | { email: string }, callbackUrl = "/dashboard"): Promise<{ res: Response; location: string }> {
  const res = await jar.fetch(`${baseUrl}/api/sso/start?${new URLSearchParams({ ...by, callbackUrl })}`);
  return { res, location: locationOf(res, baseUrl) };
}

/** Redeems the ticket cookie with next-auth's "sso" provider; true when a session cookie came back. */
export async function redeemTicket(jar: Jar, baseUrl: string, ticket = jar.get(baseUrl, "gw_sso_ticket") ?? ""): Promise<boolean> {
  const csrf = await jar.fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await jar.fetch(`${baseUrl}/api/auth/callback/sso`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, ticket, callbackUrl: baseUrl, json: "true" }),
  });
  await res.body?.cancel();
  return Boolean(jar.get(baseUrl, "next-auth.session-token"));
}

/** account.me as the jar's session: the status and, on 200, the user. */
export async function me(jar: Jar, baseUrl: string): Promise<{ status: number; email?: string }> {
  const res = await jar.fetch(`${baseUrl}/api/trpc/account.me`);
  const body = (await res.json()) as { result?: { data: { email: string } } };
  return { status: res.status, email: body.result?.data.email };
}
