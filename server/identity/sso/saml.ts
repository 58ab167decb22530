// Signing in through a SAML identity provider with @node-saml/node-saml: the AuthnRequest
// redirect (its ID kept as a single-use sign-in request), and the ACS check of the answer. The
// library checks the signature of the assertion, the audience, the time window and InResponseTo;
// two checks it leaves out are made here on the signed assertion it hands back: every Recipient
// (and the Response's Destination, when there is one) must be our ACS URL, and an assertion is
// accepted once (the replay cache is written by the caller, in the ticket's transaction).
import type { Profile, SAML } from "@node-saml/node-saml";
import { GatewayError } from "../../kernel/errors";
import { samlRequestCache, REQUEST_TTL_MS } from "./login-requests";
import { ssoUrls } from "./sso-urls";

export type SamlConnection = {
  id: string;
  samlIdpEntityId: string | null;
  samlSsoUrl: string | null;
  samlIdpCerts: string[];
  allowIdpInitiated: boolean;
};

const CLOCK_SKEW_MS = 30_000;
const MAX_ASSERTION_AGE_MS = 5 * 60_000;
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const EMAIL_ATTRIBUTES = ["email", "mail", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress", "urn:oid:0.9.2342.19200300.100.1.3"];

export async function samlFor(conn: SamlConnection, origin: string): Promise<SAML> {
  if (!conn.samlSsoUrl || !conn.samlIdpEntityId || !conn.samlIdpCerts.length) throw new Error(`SSO connection ${conn.id} has no SAML settings`);
  const { SAML, ValidateInResponseTo } = await import("@node-saml/node-saml");
  const urls = ssoUrls(origin, conn.id);
  return new SAML({
    entryPoint: conn.samlSsoUrl,
    idpIssuer: conn.samlIdpEntityId,
    idpCert: conn.samlIdpCerts,
    issuer: urls.saml_sp_entity_id,
    audience: urls.saml_sp_entity_id,
    callbackUrl: urls.saml_acs_url,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: conn.allowIdpInitiated ? ValidateInResponseTo.ifPresent : ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    maxAssertionAgeMs: MAX_ASSERTION_AGE_MS,
    cacheProvider: samlRequestCache(conn.id),
    identifierFormat: EMAIL_FORMAT,
    disableRequestedAuthnContext: true,
  });
}

/** The identity provider's address for a new sign-in; RelayState carries where to go afterwards (a path on this site). */
export async function samlAuthorizeUrl(conn: SamlConnection, origin: string, relayState: string): Promise<string> {
  return (await samlFor(conn, origin)).getAuthorizeUrlAsync(relayState, undefined, {});
}

export function samlServiceProviderMetadata(saml: SAML): string {
  return saml.generateServiceProviderMetadata(null, null);
}

export type SamlAnswer = { assertionId: string; replayExpiresAt: Date; subject: string; email: string | null; name: string | null };

const refused = (why: string, code = "saml_invalid") => new GatewayError({ status: 400, code, message: `The SAML answer was refused: ${why}.` });

type XmlNode = { $?: Record<string, string> } & Record<string, unknown>;
const nodes = (v: unknown): XmlNode[] => (Array.isArray(v) ? (v as XmlNode[]) : []);

/** The Destination attribute of the Response element (the document's root start tag), if any. */
function destinationOf(responseXml: string): string | null {
  const root = /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:[A-Za-z_][\w.-]*:)?Response\b([^>]*)>/.exec(responseXml);
  const attr = root ? /\sDestination\s*=\s*("([^"]*)"|'([^']*)')/.exec(root[1]!) : null;
  return attr ? (attr[2] ?? attr[3] ?? null) : null;
}

function firstString(v: unknown): string | null {
  const x = Array.isArray(v) ? v[0] : v;
  return typeof x === "string" && x ? x : null;
}

/** Validates a posted SAMLResponse (library checks, then Recipient and Destination) and reads who signed in. */
export async function samlAcs(conn: SamlConnection, origin: string, body: { SAMLResponse: string; RelayState?: string }): Promise<SamlAnswer> {
  const saml = await samlFor(conn, origin);
  const acs = ssoUrls(origin, conn.id).saml_acs_url;
  let profile: Profile | null;
  try {
    ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: body.SAMLResponse, ...(body.RelayState ? { RelayState: body.RelayState } : {}) }));
  } catch (err) {
    const message = (err as Error).message;
    if (/InResponseTo is missing/i.test(message)) throw refused("this connection does not accept sign-ins started at the identity provider", "saml_idp_initiated_refused");
    throw refused(message);
  }
  if (!profile?.getAssertion) throw refused("it holds no assertion");
  const assertion = (profile.getAssertion() as { Assertion?: XmlNode }).Assertion;
  const assertionId = assertion?.$?.ID;
  if (!assertion || !assertionId) throw refused("its assertion has no ID");
  const recipients = nodes(assertion.Subject)
    .flatMap((s) => nodes(s.SubjectConfirmation))
    .map((c) => nodes(c.SubjectConfirmationData)[0]?.$?.Recipient ?? null);
  if (!recipients.length || recipients.some((r) => r !== acs)) throw refused(`it is addressed to another recipient than ${acs}`, "saml_wrong_recipient");
  const destination = profile.getSamlResponseXml ? destinationOf(profile.getSamlResponseXml()) : null;
  if (destination !== null && destination !== acs) throw refused(`its Destination is not ${acs}`, "saml_wrong_recipient");

  const attribute = EMAIL_ATTRIBUTES.map((a) => firstString(profile[a])).find(Boolean) ?? null;
  const email = profile.nameIDFormat === EMAIL_FORMAT || /@/.test(profile.nameID ?? "") ? profile.nameID : attribute;
  const name = firstString(profile.displayName) ?? firstString(profile["http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name"]) ?? null;
  return {
    assertionId,
    // node-saml refuses an assertion older than its maximum age (plus the skew): past that, a copy cannot be replayed.
    replayExpiresAt: new Date(Date.now() + MAX_ASSERTION_AGE_MS + 4 * CLOCK_SKEW_MS),
    subject: profile.nameID,
    email: email ?? attribute,
    name,
  };
}
