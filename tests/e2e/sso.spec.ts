// Single sign-on in Chromium: through a real OpenID provider (oidc-provider's login page) and a
// SAML IdP (samlify) from the sign-in page's "Sign in with SSO" to the dashboard, as a new
// member with the connection's default role; a domain that requires SSO refuses the password;
// the settings section shows the addresses to register and the domains.
import { randomBytes } from "node:crypto";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { setConnection } from "../../server/identity/sso/connections";
import { verifyDomain } from "../../server/identity/sso/domains";
import { ssoUrls } from "../../server/identity/sso/sso-urls";
import { signUp as signUpUser } from "../../server/identity/users/sign-up";
import { db } from "../../server/infra/db/client";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { startOidcIdp, type OidcIdp } from "../sso/oidc-idp";
import { startSamlIdp, type SamlIdp } from "../sso/saml-idp";
import { ownerSuite } from "./owner";
import { screenshot, url, visit } from "./helpers";

test.describe.configure({ mode: "serial" });

const base = process.env.E2E_BASE_URL!;
const tag = randomBytes(3).toString("hex");
const oidcDomain = `oidc-${tag}.test`;
const samlDomain = `saml-${tag}.test`;
const suite = ownerSuite("SsoOwner", "SSO workspace");
let oidc: OidcIdp;
let saml: SamlIdp;
let oidcConnection = "";
let samlWorkspace = "";

test.beforeAll(async () => {
  oidc = await startOidcIdp();
  const set = await setConnection(suite.workspaceId, { kind: "oidc", issuer: oidc.issuer, client_id: oidc.clientId, client_secret: oidc.clientSecret, domains: [oidcDomain], default_role: "member" });
  oidcConnection = set.connection.id;
  await verifyDomain(suite.workspaceId, oidcDomain, { operator: true });
  oidc.allowRedirect(ssoUrls(base, oidcConnection).oidc_redirect_uri);

  saml = await startSamlIdp();
  ({ workspace: { id: samlWorkspace } } = await createWorkspace({ name: "SAML workspace", credits: "1" }));
  const samlSet = await setConnection(samlWorkspace, { kind: "saml", metadata_xml: saml.metadata, domains: [samlDomain], default_role: "viewer" });
  await verifyDomain(samlWorkspace, samlDomain, { operator: true });
  const id = samlSet.connection.id;
  await saml.serve({ spMetadata: () => fetch(`${base}/api/sso/saml/metadata/${id}`).then((r) => r.text()), acsUrl: ssoUrls(base, id).saml_acs_url });
});

test.afterAll(async () => {
  await oidc?.close();
  await saml?.close();
});

/** "Sign in with SSO" on the sign-in page, with a work e-mail address. */
async function startSso(page: Page, email: string) {
  await visit(page, url("/signin"));
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Continue with SSO" }).click();
}

async function freshPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return context.newPage();
}

test("a new person signs in through the OpenID provider and lands in the workspace as a member", async ({ browser }, info) => {
  const page = await freshPage(browser);
  const email = `ann@${oidcDomain}`;
  await startSso(page, email);
  await expect(page).toHaveURL(new RegExp(`^${oidc.issuer}/interaction/`));
  await page.locator("input[name=login]").fill(email);
  await page.locator("input[name=password]").fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await expect(page).toHaveURL(url(`/w/${suite.workspaceId}/usage`));
  await screenshot(page, "sso-oidc-signed-in", info);
  const member = await db.membership.findFirstOrThrow({ where: { workspaceId: suite.workspaceId, user: { email } } });
  expect(member).toMatchObject({ role: "member", source: "sso" });
  await page.context().close();
});

test("a new person signs in through the SAML IdP and lands in its workspace as a viewer", async ({ browser }, info) => {
  const page = await freshPage(browser);
  const email = `bea@${samlDomain}`;
  await startSso(page, email);
  await expect(page).toHaveURL(new RegExp(`^${saml.ssoUrl}\\?SAMLRequest=`));
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(url(`/w/${samlWorkspace}/usage`));
  await screenshot(page, "sso-saml-signed-in", info);
  const member = await db.membership.findFirstOrThrow({ where: { workspaceId: samlWorkspace, user: { email } } });
  expect(member).toMatchObject({ role: "viewer", source: "sso" });
  await page.context().close();
});

test("an address of no verified domain is told SSO is not set up for it", async ({ browser }) => {
  const page = await freshPage(browser);
  await startSso(page, `who@nowhere-${tag}.test`);
  await expect(page).toHaveURL(/\/signin\?error=SsoNotConfigured/);
  await expect(page.getByRole("alert").filter({ hasText: "Single sign-on is not set up for this e-mail domain" })).toBeVisible();
  await page.context().close();
});

test("once the domain requires SSO, its password sign-in is refused with a way forward", async ({ browser }, info) => {
  const email = `pat@${oidcDomain}`;
  const password = "a long enough password";
  await signUpUser({ name: "Pat", email, password });
  await setConnection(suite.workspaceId, { kind: "oidc", issuer: oidc.issuer, client_id: oidc.clientId, require_sso: true });
  const page = await freshPage(browser);
  await visit(page, url("/signin"));
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Your organisation signs in with single sign-on" })).toBeVisible();
  await screenshot(page, "sso-required-password-refused", info);
  await expect(page).toHaveURL(/\/signin/);
  await page.context().close();
});

test("the settings section shows the owner the addresses to register and the verified domain", async ({}, info) => {
  const page = suite.page;
  await visit(page, url(`/w/${suite.workspaceId}/settings`));
  await expect(page.getByTestId("sso-url-Redirect URI")).toHaveText(ssoUrls(base, oidcConnection).oidc_redirect_uri);
  await expect(page.getByTestId("sso-url-Sign-in URL")).toHaveText(ssoUrls(base, oidcConnection).sign_in_url);
  await expect(page.getByRole("table", { name: "The connection's e-mail domains" })).toContainText(oidcDomain);
  await expect(page.getByRole("table", { name: "The connection's e-mail domains" })).toContainText("verified (operator)");
  await expect(page.getByText("required", { exact: true })).toBeVisible();
  await screenshot(page, "sso-settings", info);
});
