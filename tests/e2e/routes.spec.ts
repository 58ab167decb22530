// Routes (virtual models) in the dashboard, as an owner uses them: the editor prefilled with an
// example, saved as the workspace's route and listed with its target; a condition that does not
// compile refused with the server's message; a call to the route with the workspace's API key,
// then that target's share of the last hour (1 call, 100 %); a member reads the page without the
// editor; the owner removes the route.
import { expect, test, type Page } from "@playwright/test";
import { db } from "../../server/infra/db/client";
import { person, screenshot, signUp, url, visit, watchConsole } from "./helpers";
import { ownerSuite } from "./owner";

test.describe.configure({ mode: "serial" });

const ROUTE = "chat-default";
const FALLBACK = "chat-fallback";
const MODEL = "local-chat-sim";
const BAD = { name: "bad", strategy: "fallback", targets: [{ model: MODEL }], conditions: [{ when: "nope ==", use: MODEL }] };

const owner = ownerSuite("Router", "Routed workspace");

const routesPage = () => url(`/w/${owner.workspaceId}/routes`);
const card = (p: Page, name: string) => p.locator(`[data-testid="route"][data-route-name="${name}"]`);
const editor = (p: Page) => p.getByLabel("Route (JSON)");

test("an owner saves the example route to local-chat-sim and sees it listed as the workspace's", async ({}, info) => {
  await visit(owner.page, routesPage());
  await expect(owner.page.getByRole("heading", { level: 1, name: "Routes" })).toBeVisible();
  await expect(owner.page.getByText("No routes yet")).toBeVisible();
  // A new route starts from the example; saved as it is.
  expect(JSON.parse(await editor(owner.page).inputValue())).toEqual({ name: ROUTE, strategy: "weighted", targets: [{ model: MODEL, weight: 70 }] });
  await owner.page.getByRole("button", { name: "Save route" }).click();
  await expect(owner.page.getByRole("status").filter({ hasText: `Saved the route ${ROUTE}.` })).toBeVisible();

  const listed = card(owner.page, ROUTE);
  await expect(listed.getByRole("row").filter({ hasText: MODEL })).toContainText("70 (100%)");
  await expect(owner.page.getByRole("heading", { name: new RegExp(`${ROUTE}\\s*this workspace\\s*weighted`) })).toBeVisible();
  await expect(listed).toContainText("default: every target once, on 429, 5xx, timeout");
  await expect(listed).toContainText("No calls in the last hour");
  const row = await db.route.findUniqueOrThrow({ where: { scope_name: { scope: owner.workspaceId, name: ROUTE } } });
  expect(row.definition).toMatchObject({ name: ROUTE, strategy: "weighted", targets: [{ model: MODEL, weight: 70 }] });
  await screenshot(owner.page, "routes", info);
});

test("a route whose condition does not compile is refused with the server's message, and not saved", async ({}, info) => {
  await editor(owner.page).fill(JSON.stringify(BAD));
  await owner.page.getByRole("button", { name: "Save route" }).click();
  const refusal = owner.page.locator("section", { has: owner.page.getByRole("form", { name: "Add a route" }) }).getByRole("alert");
  await expect(refusal).toContainText("conditions[0].when does not compile");
  await screenshot(owner.page, "routes-refused", info);
  await visit(owner.page, routesPage());
  await expect(card(owner.page, ROUTE)).toBeVisible();
  await expect(card(owner.page, "bad")).toHaveCount(0);
  expect(await db.route.count({ where: { name: "bad" } })).toBe(0);
});

test("a call to the route with the workspace's key shows as its target's share of the last hour", async ({}, info) => {
  const { data, response } = await owner.openai.chat.completions.create({ model: ROUTE, messages: [{ role: "user", content: "routed from the browser test" }] }).withResponse();
  expect(data.model).toBe(MODEL);
  expect(response.headers.get("x-gateway-route")).toBe(ROUTE);

  // The request log's row is written just after the answer: reload until it is counted.
  const share = card(owner.page, ROUTE).locator('[data-testid="route-share"]');
  await expect(async () => {
    await visit(owner.page, routesPage());
    await expect(share).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  const cells = share.getByRole("cell");
  await expect(cells.nth(0)).toHaveText(new RegExp(`^${MODEL}(@\\S+)?$`));
  await expect(cells.nth(1)).toHaveText("1");
  await expect(cells.nth(2)).toHaveText("100%");
  await expect(card(owner.page, ROUTE)).toContainText("No fallbacks or failures lately");
  await screenshot(owner.page, "routes-share", info);
});

test("a call that fell back is listed with its attempts, model@node, status and error, and time", async ({}, info) => {
  // The first target gives up after 1 ms (the whole attempt's timeout), so the call falls back to
  // the second. [sim:slow] holds the node's answer 2 s: a fast machine cannot answer within 1 ms.
  const route = { name: FALLBACK, strategy: "fallback", targets: [{ model: MODEL, node: "local", timeout_ms: 1 }, { model: MODEL }] };
  await editor(owner.page).fill(JSON.stringify(route));
  await owner.page.getByRole("button", { name: "Save route" }).click();
  await expect(owner.page.getByRole("status").filter({ hasText: `Saved the route ${FALLBACK}.` })).toBeVisible();
  await expect(card(owner.page, FALLBACK).getByRole("row").filter({ hasText: "whole 1 ms" })).toContainText("local");

  const { data, response } = await owner.openai.chat.completions.create({ model: FALLBACK, messages: [{ role: "user", content: "falls back [sim:slow]" }] }).withResponse();
  expect(data.model).toBe(MODEL);
  expect(response.headers.get("x-gateway-attempts")).toBe("2");

  const failure = card(owner.page, FALLBACK).locator('[data-testid="route-failure"]');
  await expect(async () => {
    await visit(owner.page, routesPage());
    await expect(failure).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(failure.getByRole("cell").nth(1)).toHaveText("200 after a fallback");
  const attempts = failure.getByRole("listitem");
  await expect(attempts).toHaveCount(2);
  await expect(attempts.nth(0)).toHaveText(new RegExp(`^${MODEL}@local → 5\\d\\d \\w+ \\d+ ms$`));
  await expect(attempts.nth(1)).toHaveText(new RegExp(`^${MODEL}@\\S+ → 200 \\d+ ms$`));
  // The failure's time, in the browser's own format: today.
  await expect(failure.getByRole("cell").nth(0)).toContainText(await owner.page.evaluate(() => new Date().toLocaleDateString()));
  // Only the call that fell back: the first route's plain call is not listed.
  await expect(card(owner.page, ROUTE).locator('[data-testid="route-failure"]')).toHaveCount(0);
  await screenshot(owner.page, "routes-fallback", info);
});

test("a member sees the routes but neither the editor nor Remove", async ({ browser }) => {
  const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const memberPage = await other.newPage();
    const watch = watchConsole(memberPage);
    const who = person("Reader");
    await signUp(memberPage, who);
    await expect(memberPage).toHaveURL(/\/workspaces\/new$/);
    const user = await db.user.findUniqueOrThrow({ where: { email: who.email } });
    await db.membership.create({ data: { workspaceId: owner.workspaceId, userId: user.id, role: "member" } });
    await visit(memberPage, routesPage());
    await expect(card(memberPage, ROUTE).locator('[data-testid="route-share"]')).toContainText("100%");
    await expect(memberPage.getByText("Your role (member) can see the routes but not change them")).toBeVisible();
    await expect(editor(memberPage)).toHaveCount(0);
    await expect(memberPage.getByRole("button", { name: /^(Save route|Remove|Edit)/ })).toHaveCount(0);
    watch.expectNone();
  } finally {
    await other.close();
  }
});

test("the owner opens a route in the editor, then removes both", async () => {
  await owner.page.getByRole("button", { name: `Edit the route ${ROUTE}` }).click();
  const form = owner.page.getByRole("form", { name: `Edit ${ROUTE}` });
  await expect(form).toBeVisible();
  // The stored definition, defaults included.
  expect(JSON.parse(await editor(owner.page).inputValue())).toMatchObject({ name: ROUTE, strategy: "weighted", targets: [{ model: MODEL, weight: 70 }], conditions: [], max_wait_ms: 2000 });
  await form.getByRole("button", { name: "New route instead" }).click();
  await expect(owner.page.getByRole("form", { name: "Add a route" })).toBeVisible();

  for (const name of [FALLBACK, ROUTE]) {
    await owner.page.getByRole("button", { name: `Remove the route ${name}` }).click();
    await owner.page.getByRole("group", { name: `Confirm removing the route ${name}` }).getByRole("button", { name: "Yes, remove" }).click();
    await expect(card(owner.page, name)).toHaveCount(0);
  }
  await expect(owner.page.getByText("No routes yet")).toBeVisible();
  expect(await db.route.count({ where: { scope: owner.workspaceId } })).toBe(0);
});
