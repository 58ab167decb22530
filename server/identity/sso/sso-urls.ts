// The addresses an identity provider is given for a connection. One redirect URI and one ACS URL
// per connection: an answer reaching one connection's endpoint cannot be taken for another's.
import { env } from "../../infra/env";
import type { SsoUrls } from "./connection-schemas";

/** The origin configured for links that leave the gateway (NEXTAUTH_URL, else PUBLIC_BASE_URL), or null. */
export function configuredOrigin(): string | null {
  const origin = env.NEXTAUTH_URL ?? env.PUBLIC_BASE_URL;
  return origin ? new URL(origin).origin : null;
}

export function ssoUrls(origin: string, connectionId: string): SsoUrls {
  const o = origin.replace(/\/+$/, "");
  const metadata = `${o}/api/sso/saml/metadata/${connectionId}`;
  return {
    oidc_redirect_uri: `${o}/api/sso/oidc/callback/${connectionId}`,
    saml_acs_url: `${o}/api/sso/saml/acs/${connectionId}`,
    saml_sp_entity_id: metadata,
    saml_metadata_url: metadata,
    sign_in_url: `${o}/api/sso/start?connection=${connectionId}`,
  };
}
