// Single sign-on through a real OpenID provider (oidc-provider, in this process): the gateway's
// start and callback routes over HTTP, with state, nonce and PKCE checked, the person provisioned
// only in a verified domain of the connection, and the session opened through next-auth.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { scimActor } from "../../server/audit/actor";
import { setConnection } from "../../server/identity/sso/connections";
import { deactivateMember } from "../../server/identity/workspaces/deactivate-member";
import { verifyDomain } from "../../server/identity/sso/domains";
import { ssoUrls } from "../../server/identity/sso/sso-urls";
import { db } from "../../server/infra/db/client";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { Jar, locationOf } from "../sso/browser-jar";
import { me, redeemTicket, startSignIn } from "../sso/gateway-sso";
import { startOidcIdp, type OidcIdp } from "../sso/oidc-idp";

const baseUrl = inject("baseUrl");
const domain = `acme-${randomBytes(4).toString("hex")}.test`;
let idp: OidcIdp;
let workspaceId = "";
let connectionId = "";

beforeAll(async () => {
  idp = await startOidcIdp();
  ({ workspace: { id: workspaceId } } = await createWorkspace({ name: "OIDC workspace", credits: "1" }));
  const set = await setConnection(workspaceId, { kind: "oidc", issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret, domains: [domain, `unverified-${domain}`], default_role: "member" });
  connectionId = set.connection.id;
  await verifyDomain(workspaceId, domain, { operator: true });
  idp.allowRedirect(ssoUrls(baseUrl, connectionId).oidc_redirect_uri);
});

afterAll(async () => {
  await idp?.close();
});

const error = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

/** Starts a sign-in and logs `email` in at the provider: the jar (holding the state cookie) and the callback URL. */
async function throughProvider(email: string, tamper?: (authUrl: URL) => void) {
  const jar = new Jar();
  const { res, location } = await startSignIn(jar, baseUrl, { connection: connectionId });
  expect(res.status).toBe(303);
  const authUrl = new URL(location);
  expect(authUrl.origin).toBe(idp.issuer);
  tamper?.(authUrl);
  return { jar, callback: await idp.login(authUrl.href, email) };
}

describe("OIDC sign-in", () => {
  it("signs a new person in: state, nonce and PKCE sent; a member with the default role, audited; the ticket opens a session once", async () => {
    const email = `ann-${randomBytes(3).toString("hex")}@${domain}`;
    const jar = new Jar();
    const { res, location } = await startSignIn(jar, baseUrl, { email: email.toUpperCase() }, "/w/somewhere");
    expect(res.status).toBe(303);
    const auth = new URL(location).searchParams;
    expect(auth.get("state")).toBeTruthy();
    expect(auth.get("nonce")).toBeTruthy();
    expect(auth.get("code_challenge_method")).toBe("S256");
    expect(auth.get("redirect_uri")).toBe(ssoUrls(baseUrl, connectionId).oidc_redirect_uri);
    expect(auth.get("login_hint")).toBe(email);
    expect(jar.get(baseUrl, "gw_sso_state")).toBe(auth.get("state"));

    const callback = await idp.login(location, email);
    expect(callback.startsWith(ssoUrls(baseUrl, connectionId).oidc_redirect_uri)).toBe(true);
    const done = await jar.fetch(callback);
    expect(done.status).toBe(303);
    expect(locationOf(done, baseUrl)).toBe(`${baseUrl}/sso/complete?callbackUrl=${encodeURIComponent("/w/somewhere")}`);
    const ticket = jar.get(baseUrl, "gw_sso_ticket");
    expect(ticket).toBeTruthy();
    expect(jar.get(baseUrl, "gw_sso_state")).toBeUndefined();

    const user = await db.user.findUniqueOrThrow({ where: { email }, include: { memberships: true, accounts: true } });
    expect(user.passwordHash).toBeNull();
    expect(user.memberships).toEqual([expect.objectContaining({ workspaceId, role: "member", source: "sso", active: true })]);
    expect(user.accounts).toEqual([expect.objectContaining({ provider: `sso:${connectionId}`, providerAccountId: email })]);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: "member.provision", targetId: user.id } });
    expect(audit.actorName).toBe(`sso connection ${connectionId}`);

    expect(await redeemTicket(jar, baseUrl)).toBe(true);
    expect(await me(jar, baseUrl)).toEqual({ status: 200, email });
    // Single use: the same ticket opens no second session.
    const again = new Jar();
    expect(await redeemTicket(again, baseUrl, ticket)).toBe(false);
    expect((await me(again, baseUrl)).status).toBe(401);
  });

  it("a returning person keeps their membership and role; the subject link finds them", async () => {
    const email = `bob-${randomBytes(3).toString("hex")}@${domain}`;
    const first = await throughProvider(email);
    expect((await first.jar.fetch(first.callback)).status).toBe(303);
    await db.membership.updateMany({ where: { workspaceId, user: { email } }, data: { role: "billing" } });
    const second = await throughProvider(email);
    expect((await second.jar.fetch(second.callback)).status).toBe(303);
    const members = await db.membership.findMany({ where: { workspaceId, user: { email } } });
    expect(members.map((m) => m.role)).toEqual(["billing"]);
    expect(await db.auditEvent.count({ where: { workspaceId, action: "member.provision", targetId: members[0]!.userId } })).toBe(1);
  });

  it("refuses a callback in another browser than the one that started (state cookie missing or different): 400 sso_state_mismatch", async () => {
    const { jar, callback } = await throughProvider(`cat@${domain}`);
    const other = new Jar();
    const res = await other.fetch(callback);
    expect(res.status).toBe(400);
    expect(await error(res)).toMatchObject({ code: "sso_state_mismatch" });
    other.set(baseUrl, "gw_sso_state", "someone-elses-state");
    expect(await error(await other.fetch(callback))).toMatchObject({ code: "sso_state_mismatch" });
    // The state in the URL edited to match a cookie it does not belong to is refused as well.
    const edited = new URL(callback);
    edited.searchParams.set("state", "someone-elses-state");
    const res2 = await other.fetch(edited.href);
    expect(res2.status).toBe(400);
    expect(await error(res2)).toMatchObject({ code: "sso_state_unknown" });
    expect(await db.user.findUnique({ where: { email: `cat@${domain}` } })).toBeNull();
    // The right browser can still finish.
    expect((await jar.fetch(callback)).status).toBe(303);
  });

  it("refuses a callback whose state was already used: 400 sso_state_unknown", async () => {
    const { jar, callback } = await throughProvider(`dan@${domain}`);
    const state = jar.get(baseUrl, "gw_sso_state")!;
    expect((await jar.fetch(callback)).status).toBe(303);
    jar.set(baseUrl, "gw_sso_state", state);
    const replay = await jar.fetch(callback);
    expect(replay.status).toBe(400);
    expect(await error(replay)).toMatchObject({ code: "sso_state_unknown" });
  });

  it("refuses an ID token whose nonce is not the one sent: 400 sso_failed", async () => {
    const email = `eve@${domain}`;
    const { jar, callback } = await throughProvider(email, (u) => u.searchParams.set("nonce", "a-nonce-the-gateway-never-sent"));
    const res = await jar.fetch(callback);
    expect(res.status).toBe(400);
    const e = await error(res);
    expect(e.code).toBe("sso_failed");
    expect(e.message).toMatch(/nonce/i);
    expect(await db.user.findUnique({ where: { email } })).toBeNull();
  });

  it("refuses an address outside the connection's verified domains (403 sso_domain_mismatch), even in its unverified one", async () => {
    for (const email of [`mallory@elsewhere-${domain}`, `mallory@unverified-${domain}`]) {
      const { jar, callback } = await throughProvider(email);
      const res = await jar.fetch(callback);
      expect(res.status).toBe(403);
      expect(await error(res)).toMatchObject({ code: "sso_domain_mismatch" });
      expect(await db.user.findUnique({ where: { email } })).toBeNull();
    }
  });

  it("refuses a deactivated member (403 member_deactivated) and shows a browser a page with a way back", async () => {
    const email = `fay@${domain}`;
    const first = await throughProvider(email);
    expect((await first.jar.fetch(first.callback)).status).toBe(303);
    await db.membership.updateMany({ where: { workspaceId, user: { email } }, data: { active: false, deactivatedAt: new Date() } });
    const { jar, callback } = await throughProvider(email);
    const res = await jar.fetch(callback, { headers: { accept: "text/html" } });
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).toContain("deactivated");
    expect(html).toContain('href="/signin"');
  });

  it("a session opened by single sign-on ends at once when SCIM deactivates the member", async () => {
    const email = `gus@${domain}`;
    const { jar, callback } = await throughProvider(email);
    expect((await jar.fetch(callback)).status).toBe(303);
    expect(await redeemTicket(jar, baseUrl)).toBe(true);
    expect(await me(jar, baseUrl)).toEqual({ status: 200, email });
    const member = await db.membership.findFirstOrThrow({ where: { workspaceId, user: { email } } });
    await db.$transaction((tx) => deactivateMember(tx, workspaceId, member.id, scimActor("scimt_test")));
    expect((await me(jar, baseUrl)).status).toBe(401);
  });

  it("sends an address of no verified domain back to the sign-in page (SsoNotConfigured)", async () => {
    const jar = new Jar();
    const { res, location } = await startSignIn(jar, baseUrl, { email: `who@nowhere-${domain}` });
    expect(res.status).toBe(303);
    expect(location).toBe(`${baseUrl}/signin?error=SsoNotConfigured`);
    const unverified = await startSignIn(jar, baseUrl, { email: `who@unverified-${domain}` });
    expect(unverified.location).toBe(`${baseUrl}/signin?error=SsoNotConfigured`);
  });
});
