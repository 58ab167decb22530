// An identity provider's SAML metadata, read when a connection is set: its entity id, its
// HTTP-Redirect single sign-on address and its signing certificates. The XML is parsed by
// @boxyhq/saml20 (the SAML library we sign in with reads no IdP metadata); a metadata URL is
// fetched through the outbound guard like every address a tenant names.
import { guardedFetch, OutboundError } from "../../infra/net/outbound-guard";
import { assertOutboundUrlAllowed } from "../../infra/net/outbound-policy";
import { errors } from "../../kernel/errors";

export type IdpMetadata = { xml: string; entityId: string; ssoUrl: string; certs: string[]; validTo: Date | null };

type Saml20 = { parseMetadata: (xml: string, opts: object) => Promise<Record<string, unknown>> };

async function saml20(): Promise<Saml20> {
  // A CommonJS package whose only export is `default`: how that default arrives depends on the loader.
  const m = (await import("@boxyhq/saml20")) as unknown as { default?: Saml20 & { default?: Saml20 } };
  const lib = m.default?.parseMetadata ? m.default : m.default?.default;
  if (!lib) throw new Error("@boxyhq/saml20 has no parseMetadata");
  return lib;
}

const invalid = (why: string) => errors.invalidRequest(`The SAML metadata cannot be used: ${why}.`, "metadata", "sso_metadata_invalid");

/** Fetches metadata from a URL (outbound guard: public https, no redirects, size and time limits). */
export async function fetchMetadata(url: string): Promise<string> {
  assertOutboundUrlAllowed(url, "metadata_url");
  try {
    const res = await guardedFetch(url, { headers: { accept: "application/samlmetadata+xml, application/xml, text/xml" } });
    if (!res.ok) throw invalid(`${url} answered ${res.status}`);
    return await res.text();
  } catch (err) {
    if (err instanceof OutboundError) throw invalid(err.reason);
    throw err;
  }
}

export async function parseIdpMetadata(xml: string): Promise<IdpMetadata> {
  let m: Record<string, unknown>;
  try {
    m = await (await saml20()).parseMetadata(xml, {});
  } catch (err) {
    throw invalid(`it is not SAML metadata (${(err as Error).message})`);
  }
  const entityId = typeof m.entityID === "string" ? m.entityID : "";
  const sso = (m.sso ?? {}) as { redirectUrl?: unknown };
  const ssoUrl = typeof sso.redirectUrl === "string" ? sso.redirectUrl : "";
  const certs = typeof m.publicKey === "string" ? m.publicKey.split(",").map((c) => c.trim()).filter(Boolean) : [];
  if (!entityId) throw invalid("it names no entityID");
  if (!ssoUrl) throw invalid("it has no SingleSignOnService with the HTTP-Redirect binding");
  if (!/^https?:\/\//.test(ssoUrl)) throw invalid("its SingleSignOnService address is not an http(s) URL");
  if (!certs.length) throw invalid("it has no signing certificate");
  const validTo = typeof m.validTo === "string" && !Number.isNaN(Date.parse(m.validTo)) ? new Date(m.validTo) : null;
  return { xml, entityId, ssoUrl, certs, validTo };
}
