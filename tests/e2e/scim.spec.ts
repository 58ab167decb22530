// SCIM provisioning in the dashboard, as an owner sets it up: the settings section shows the base
// URL and a token once; an IdP (the SCIM client) provisions a person and a group with it; the
// owner maps the group to a role; the person, signed in in another browser, loses the dashboard
// on the next page load after the IdP deactivates them; a revoked token provisions nothing.
import { randomBytes } from "node:crypto";
import { expect, test, type Browser } from "@playwright/test";
import { db } from "../../server/infra/db/client";
import { hashPassword } from "../../server/identity/users/password";
import { newId } from "../../server/kernel/ids";
import { ScimClient } from "../scim/scim-client";
import { ownerSuite } from "./owner";
import { screenshot, signIn, url, visit, watchConsole } from "./helpers";

test.describe.configure({ mode: "serial" });

const suite = ownerSuite("Scimowner", "SCIM workspace");
const domain = `scim-e2e-${randomBytes(4).toString("hex")}.test`;
let client: ScimClient;
let personId = "";
const person = { email: `pat@${domain}`, password: "a long enough password" };

test("the settings section makes a token, shown once, with the base URL", async ({}, info) => {
  const { page, workspaceId } = suite;
  const connectionId = newId("ssoc");
  await db.ssoConnection.create({ data: { id: connectionId, workspaceId, kind: "oidc", oidcIssuer: "https://idp.example.test", oidcClientId: "c", defaultRole: "viewer" } });
  await db.ssoDomain.create({ data: { id: newId("ssod"), connectionId, workspaceId, domain, verificationToken: "t", verifiedAt: new Date(), verifiedBy: "operator" } });
  await visit(page, url(`/w/${workspaceId}/settings`));
  const section = page.locator("section", { has: page.getByRole("heading", { name: "SCIM provisioning" }) });
  await expect(section.getByTestId("scim-base-url")).toHaveText(url("/scim/v2"));
  await section.getByRole("button", { name: "Create a token" }).click();
  const token = await page.getByTestId("scim-token").innerText();
  expect(token).toMatch(/^scim_[0-9A-Za-z]{40}$/);
  await expect(section.getByRole("cell", { name: `${token.slice(0, 9)}…` })).toBeVisible();
  await screenshot(page, "scim-token", info);
  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("scim-token")).toHaveCount(0);
  client = new ScimClient(url("/scim/v2"), token);
});

test("the IdP provisions a person and a group; the owner maps the group to a role", async () => {
  const { page, workspaceId } = suite;
  const made = await client.createUser(person.email);
  expect(made.status).toBe(201);
  personId = made.body.id as string;
  expect((await client.createGroup("Platform team", [personId])).status).toBe(201);
  await visit(page, url(`/w/${workspaceId}/settings`));
  const select = page.getByLabel("Role of Platform team");
  await expect(select).toHaveValue("");
  await select.selectOption("member");
  await expect.poll(async () => (await db.membership.findUniqueOrThrow({ where: { id: personId } })).role).toBe("member");
  await page.reload();
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await expect(page.getByLabel("Role of Platform team")).toHaveValue("member");
});

test("a deactivated person's open dashboard stops working at once", async ({ browser }: { browser: Browser }) => {
  const { workspaceId } = suite;
  await db.user.update({ where: { email: person.email }, data: { passwordHash: await hashPassword(person.password) } });
  const context = await browser.newContext();
  const page = await context.newPage();
  const consoleWatch = watchConsole(page);
  await signIn(page, person);
  await page.waitForURL((u) => !u.pathname.startsWith("/signin"));
  await visit(page, url(`/w/${workspaceId}/usage`));
  await expect(page).toHaveURL(new RegExp(`/w/${workspaceId}/usage`));
  expect((await client.oktaSetActive(personId, false)).status).toBe(200);
  await page.reload();
  await expect(page).toHaveURL(/\/signin/);
  consoleWatch.expectNone();
  await context.close();
});

test("revoking the token stops provisioning", async () => {
  const { page, workspaceId } = suite;
  await visit(page, url(`/w/${workspaceId}/settings`));
  await page.getByRole("button", { name: "Revoke the SCIM token" }).click();
  await page.getByRole("group", { name: "Confirm revoking the SCIM token" }).getByRole("button", { name: "Yes, revoke" }).click();
  await expect(page.getByRole("button", { name: "Create a token" })).toBeVisible();
  expect((await client.request("GET", "/Users")).status).toBe(401);
});
