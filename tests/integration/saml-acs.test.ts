// The SAML ACS over HTTP, against answers signed by a samlify identity provider: a valid answer
// signs the person in; forged (another key, or edited after signing), expired, replayed (to a
// request of ours, and unsolicited), for another audience or another recipient are refused;
// answers the IdP starts by itself only when the connection allows them.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { setConnection } from "../../server/identity/sso/connections";
import { verifyDomain } from "../../server/identity/sso/domains";
import { ssoUrls } from "../../server/identity/sso/sso-urls";
import { db } from "../../server/infra/db/client";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { Jar, locationOf } from "../sso/browser-jar";
import { me, redeemTicket, startSignIn } from "../sso/gateway-sso";
import { newKeyPair } from "../sso/idp-keys";
import { startSamlIdp, type ResponseOptions, type SamlIdp } from "../sso/saml-idp";

const baseUrl = inject("baseUrl");
const domain = `saml-${randomBytes(4).toString("hex")}.test`;
let idp: SamlIdp;
let workspaceId = "";
let connectionId = "";
let acsUrl = "";
let spMetadata = "";

async function allowIdpInitiated(allow: boolean) {
  await setConnection(workspaceId, { kind: "saml", metadata_xml: idp.metadata, allow_idp_initiated: allow });
}

beforeAll(async () => {
  idp = await startSamlIdp();
  ({ workspace: { id: workspaceId } } = await createWorkspace({ name: "SAML workspace", credits: "1" }));
  const set = await setConnection(workspaceId, { kind: "saml", metadata_xml: idp.metadata, domains: [domain], default_role: "viewer" });
  connectionId = set.connection.id;
  expect(set.connection).toMatchObject({ kind: "saml", issuer: idp.entityId, saml_sso_url: idp.ssoUrl, client_secret_set: false });
  await verifyDomain(workspaceId, domain, { operator: true });
  acsUrl = ssoUrls(baseUrl, connectionId).saml_acs_url;
  const meta = await fetch(`${baseUrl}/api/sso/saml/metadata/${connectionId}`);
  expect(meta.status).toBe(200);
  expect(meta.headers.get("content-type")).toContain("application/samlmetadata+xml");
  spMetadata = await meta.text();
  expect(spMetadata).toContain(`entityID="${ssoUrls(baseUrl, connectionId).saml_sp_entity_id}"`);
  expect(spMetadata).toContain(`Location="${acsUrl}"`);
  expect(spMetadata).toContain('WantAssertionsSigned="true"');
});

afterAll(async () => {
  await idp?.close();
});

/** A fresh AuthnRequest of the gateway (GET /api/sso/start): the redirect URL to the IdP. */
async function authnRequest(jar = new Jar()): Promise<string> {
  const { res, location } = await startSignIn(jar, baseUrl, { connection: connectionId }, "/w/after-saml");
  expect(res.status).toBe(303);
  expect(location.startsWith(`${idp.ssoUrl}?SAMLRequest=`)).toBe(true);
  return location;
}

async function answer(o: Partial<ResponseOptions> & { email?: string } = {}): Promise<string> {
  const request = o.request === undefined ? await authnRequest() : o.request;
  return idp.response({ spMetadata, acsUrl, email: o.email ?? `ann@${domain}`, ...o, request });
}

function post(jar: Jar, samlResponse: string, relayState?: string): Promise<Response> {
  const body = new URLSearchParams({ SAMLResponse: samlResponse, ...(relayState ? { RelayState: relayState } : {}) });
  return jar.fetch(acsUrl, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: body.toString() });
}

async function refused(res: Response, status: number, code: string, message?: RegExp) {
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect([res.status, body.error.code]).toEqual([status, code]);
  if (message) expect(body.error.message).toMatch(message);
}

describe("SAML ACS", () => {
  it("signs a person in from an answer to our request: a new member with the default role; RelayState is where they land", async () => {
    const email = `ann-${randomBytes(3).toString("hex")}@${domain}`;
    const jar = new Jar();
    const request = await authnRequest(jar);
    const relayState = new URL(request).searchParams.get("RelayState")!;
    expect(relayState).toBe("/w/after-saml");
    const res = await post(jar, await answer({ request, email }), relayState);
    expect(res.status).toBe(303);
    expect(locationOf(res, baseUrl)).toBe(`${baseUrl}/sso/complete?callbackUrl=${encodeURIComponent("/w/after-saml")}`);
    const member = await db.membership.findFirstOrThrow({ where: { workspaceId, user: { email } } });
    expect(member).toMatchObject({ role: "viewer", source: "sso", active: true });
    expect(await redeemTicket(jar, baseUrl)).toBe(true);
    expect(await me(jar, baseUrl)).toEqual({ status: 200, email });
  });

  it("a RelayState that leaves the site lands on the dashboard instead", async () => {
    const request = await authnRequest();
    const res = await post(new Jar(), await answer({ request }), "https://evil.example/steal");
    expect(res.status).toBe(303);
    expect(locationOf(res, baseUrl)).toBe(`${baseUrl}/sso/complete?callbackUrl=${encodeURIComponent("/dashboard")}`);
  });

  it("refuses the same answer posted again (its request was used up)", async () => {
    const saml = await answer();
    expect((await post(new Jar(), saml)).status).toBe(303);
    await refused(await post(new Jar(), saml), 400, "saml_invalid", /InResponseTo/);
  });

  it("refuses an answer signed by another key, and one edited after signing", async () => {
    await refused(await post(new Jar(), await answer({ keys: newKeyPair("evil-idp") })), 400, "saml_invalid", /signature/i);
    const xml = Buffer.from(await answer({ email: `ann@${domain}` }), "base64").toString("utf8");
    const edited = xml.replaceAll(`ann@${domain}`, `boss@${domain}`);
    expect(edited).not.toBe(xml);
    await refused(await post(new Jar(), Buffer.from(edited).toString("base64")), 400, "saml_invalid", /signature/i);
    expect(await db.user.findUnique({ where: { email: `boss@${domain}` } })).toBeNull();
  });

  it("refuses an expired answer", async () => {
    await refused(await post(new Jar(), await answer({ shiftMs: -60 * 60_000 })), 400, "saml_invalid");
  });

  it("refuses an answer for another audience", async () => {
    await refused(await post(new Jar(), await answer({ audience: "https://another-sp.example/metadata" })), 400, "saml_invalid", /audience/i);
  });

  it("refuses an answer for another recipient, or with another Destination (both signed by the right IdP)", async () => {
    await refused(await post(new Jar(), await answer({ recipient: "https://another-sp.example/acs" })), 400, "saml_wrong_recipient");
    await refused(await post(new Jar(), await answer({ destination: "https://another-sp.example/acs" })), 400, "saml_wrong_recipient");
  });

  it("refuses an answer to a request it never sent", async () => {
    await refused(await post(new Jar(), await answer({ inResponseTo: "_a-request-never-sent" })), 400, "saml_invalid", /InResponseTo/);
  });

  it("refuses an address outside the connection's verified domains (403 sso_domain_mismatch)", async () => {
    const email = `mallory@not-${domain}`;
    await refused(await post(new Jar(), await answer({ email })), 403, "sso_domain_mismatch");
    expect(await db.user.findUnique({ where: { email } })).toBeNull();
  });

  it("IdP-initiated answers: refused while the connection does not allow them; once allowed, each is accepted once", async () => {
    const email = `idp-${randomBytes(3).toString("hex")}@${domain}`;
    const unsolicited = await answer({ request: null, email });
    await refused(await post(new Jar(), unsolicited), 400, "saml_idp_initiated_refused");
    await allowIdpInitiated(true);
    try {
      const jar = new Jar();
      const first = await post(jar, unsolicited);
      expect(first.status).toBe(303);
      expect(locationOf(first, baseUrl)).toBe(`${baseUrl}/sso/complete?callbackUrl=${encodeURIComponent("/dashboard")}`);
      expect(await redeemTicket(jar, baseUrl)).toBe(true);
      await refused(await post(new Jar(), unsolicited), 400, "saml_replayed");
      // Answers to our own requests still work, and are still checked against them.
      expect((await post(new Jar(), await answer())).status).toBe(303);
      await refused(await post(new Jar(), await answer({ inResponseTo: "_a-request-never-sent" })), 400, "saml_invalid", /InResponseTo/);
    } finally {
      await allowIdpInitiated(false);
    }
  });

  it("answers 404 for a connection that is not SAML, and 400 for a POST without SAMLResponse", async () => {
    await refused(await fetch(`${baseUrl}/api/sso/saml/acs/ssoc_nonexistent`, { method: "POST", body: new URLSearchParams({ SAMLResponse: "x" }) }), 404, "sso_not_configured");
    await refused(await fetch(acsUrl, { method: "POST", body: new URLSearchParams({}) }), 400, "saml_invalid", /SAMLResponse/);
  });
});
