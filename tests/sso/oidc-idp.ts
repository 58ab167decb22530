// A real OpenID provider for the tests: oidc-provider in this process, on a free port of
// 127.0.0.1, with its development login page (any password; the login is the e-mail address).
// Its one client's redirect URI is the gateway's callback of a connection, known only once the
// connection exists: `allowRedirect` starts the provider again with it (same issuer and keys).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { generateKeyPairSync } from "node:crypto";
import Provider from "oidc-provider";
import { freePort } from "../../server/infra/net/free-port";
import { Jar, locationOf } from "./browser-jar";

export type OidcIdp = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  allowRedirect: (uri: string) => void;
  /** Signs `email` in at the provider from an authorization URL; answers the callback URL the provider sends the browser to. */
  login: (authorizationUrl: string, email: string) => Promise<string>;
  close: () => Promise<void>;
};

export async function startOidcIdp(): Promise<OidcIdp> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = "gateway-test";
  const clientSecret = "a-client-secret-of-at-least-32-characters";
  const jwk = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const redirects = new Set<string>(["http://127.0.0.1/unused"]);
  let provider: Provider;

  const build = () => {
    provider = new Provider(issuer, {
      clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [...redirects], grant_types: ["authorization_code"], response_types: ["code"] }],
      jwks: { keys: [{ ...jwk, use: "sig", alg: "RS256", kid: "test" }] as never },
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, email: sub, email_verified: true, name: sub.split("@")[0] }) }),
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
      // A first-party client: the scopes are granted without a consent page.
      loadExistingGrant: async (ctx) => {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId });
        grant.addOIDCScope("openid email profile");
        await grant.save();
        return grant;
      },
      features: { devInteractions: { enabled: true } },
      pkce: { required: () => true },
      cookies: { keys: ["oidc-test-cookie-key"] },
    });
  };
  build();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => provider.callback()(req, res));
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));

  return {
    issuer,
    clientId,
    clientSecret,
    allowRedirect(uri) {
      redirects.add(uri);
      build();
    },
    async login(authorizationUrl, email) {
      const jar = new Jar();
      let url = authorizationUrl;
      let res = await jar.fetch(url);
      while (res.status >= 300 && res.status < 400) {
        url = locationOf(res, url);
        res = await jar.fetch(url);
      }
      const html = await res.text();
      const action = /action="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error(`no login form at ${url}: ${res.status} ${html.slice(0, 300)}`);
      url = new URL(action, url).href;
      res = await jar.fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ prompt: "login", login: email, password: "any" }).toString(),
      });
      for (;;) {
        const next = locationOf(res, url);
        if (!next.startsWith(issuer)) return next;
        url = next;
        res = await jar.fetch(url);
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
