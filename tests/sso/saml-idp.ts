// A SAML identity provider for the tests, built with samlify: it reads the gateway's
// AuthnRequest (from the redirect /api/sso/start answers) and signs answers whose every field a
// test can set (time, audience, recipient, InResponseTo, signing key), so that the valid,
// expired, forged, replayed and unsolicited cases are all real signed XML. `serve()` adds the
// HTTP pages a browser goes through: GET /sso (an e-mail field) and POST /sso/login (the
// auto-submitting form to the gateway's ACS).
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import * as samlifyModule from "samlify";
import { freePort } from "../../server/infra/net/free-port";
import { newKeyPair, type KeyPair } from "./idp-keys";

// A CommonJS package whose getters (SamlLib) ESM named imports miss: use its default export.
const samlify = ((samlifyModule as unknown as { default?: typeof samlifyModule }).default ?? samlifyModule) as typeof samlifyModule;
// The test IdP only reads the gateway's AuthnRequest: no XML schema validation needed there.
samlify.setSchemaValidator({ validate: async () => "skipped" });

const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

export type ResponseOptions = {
  /** The gateway's redirect to the IdP (holding the AuthnRequest); null: an IdP-initiated answer. */
  request: string | null;
  email: string;
  /** The gateway's SP metadata (GET /api/sso/saml/metadata/:id). */
  spMetadata: string;
  acsUrl: string;
  shiftMs?: number;
  audience?: string;
  recipient?: string;
  destination?: string;
  inResponseTo?: string | null;
  keys?: KeyPair;
  relayState?: string;
};

export type SamlIdp = {
  entityId: string;
  ssoUrl: string;
  metadata: string;
  /** A base64 SAMLResponse for the POST binding. */
  response: (o: ResponseOptions) => Promise<string>;
  /** Serves the login pages for a browser; `spMetadata` and `acsUrl` as for `response`. */
  serve: (sp: { spMetadata: () => Promise<string>; acsUrl: string }) => Promise<void>;
  close: () => Promise<void>;
};

export async function startSamlIdp(keys: KeyPair = newKeyPair()): Promise<SamlIdp> {
  const port = await freePort();
  const entityId = `http://127.0.0.1:${port}/idp`;
  const ssoUrl = `http://127.0.0.1:${port}/sso`;
  const idpWith = (k: KeyPair) =>
    samlify.IdentityProvider({
      entityID: entityId,
      privateKey: k.key,
      signingCert: k.cert,
      isAssertionEncrypted: false,
      nameIDFormat: [EMAIL_FORMAT],
      singleSignOnService: [{ Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect", Location: ssoUrl }],
    });
  const idp = idpWith(keys);
  let server: Server | undefined;

  async function response(o: ResponseOptions): Promise<string> {
    const sp = samlify.ServiceProvider({ metadata: o.spMetadata });
    const query = o.request ? Object.fromEntries(new URL(o.request).searchParams) : null;
    const parsed = query ? await idp.parseLoginRequest(sp, "redirect", { query, octetString: "" }) : null;
    const requestId = o.inResponseTo !== undefined ? o.inResponseTo : ((parsed?.extract as { request?: { id?: string } } | undefined)?.request?.id ?? null);
    const now = new Date(Date.now() + (o.shiftMs ?? 0));
    const later = new Date(now.getTime() + 5 * 60_000);
    const audience = o.audience ?? samlify.ServiceProvider({ metadata: o.spMetadata }).entityMeta.getEntityID();
    const ctx = await idpWith(o.keys ?? keys).createLoginResponse(sp, (parsed ?? { extract: { request: {} } }) as never, "post", { email: o.email }, {
      relayState: o.relayState,
      customTagReplacement: (template: string) => {
        const id = `_${randomUUID()}`;
        return {
          id,
          context: samlify.SamlLib.replaceTagsByValue(template, {
            ID: id,
            AssertionID: `_${randomUUID()}`,
            Destination: o.destination ?? o.acsUrl,
            Audience: audience,
            SubjectRecipient: o.recipient ?? o.acsUrl,
            Issuer: entityId,
            IssueInstant: now.toISOString(),
            StatusCode: "urn:oasis:names:tc:SAML:2.0:status:Success",
            ConditionsNotBefore: now.toISOString(),
            ConditionsNotOnOrAfter: later.toISOString(),
            SubjectConfirmationDataNotOnOrAfter: later.toISOString(),
            NameIDFormat: EMAIL_FORMAT,
            NameID: o.email,
            InResponseTo: requestId as string,
            AuthnStatement: "",
            AttributeStatement: "",
          }),
        };
      },
    } as never);
    return (ctx as { context: string }).context;
  }

  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  return {
    entityId,
    ssoUrl,
    metadata: idp.getMetadata(),
    response,
    async serve(sp) {
      server = createServer((req, res) => {
        const url = new URL(req.url ?? "/", ssoUrl);
        if (req.method === "GET" && url.pathname === "/sso") {
          const request = url.href;
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
          res.end(
            `<!doctype html><title>Test IdP</title><h1>Test SAML IdP</h1><form method="post" action="/sso/login">` +
              `<input type="hidden" name="request" value="${escape(request)}">` +
              `<label>Email <input name="email" type="email"></label><button type="submit">Sign in</button></form>`,
          );
          return;
        }
        if (req.method === "POST" && url.pathname === "/sso/login") {
          let body = "";
          req.on("data", (d) => (body += d));
          req.on("end", () => {
            const form = new URLSearchParams(body);
            const request = form.get("request") ?? "";
            const relayState = new URL(request).searchParams.get("RelayState") ?? undefined;
            void sp
              .spMetadata()
              .then((spMetadata) => response({ request, email: form.get("email") ?? "", spMetadata, acsUrl: sp.acsUrl, relayState }))
              .then((saml) => {
                res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
                res.end(
                  `<!doctype html><title>Signing in</title><form id="f" method="post" action="${escape(sp.acsUrl)}">` +
                    `<input type="hidden" name="SAMLResponse" value="${escape(saml)}">` +
                    (relayState ? `<input type="hidden" name="RelayState" value="${escape(relayState)}">` : "") +
                    `<noscript><button type="submit">Continue</button></noscript></form><script>document.getElementById("f").submit()</script>`,
                );
              })
              .catch((err: Error) => {
                res.writeHead(500, { "content-type": "text/plain" });
                res.end(err.message);
              });
          });
          return;
        }
        res.writeHead(404);
        res.end();
      });
      await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", resolve));
    },
    close: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
}
