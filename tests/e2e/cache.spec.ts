// The response cache from the dashboard: an owner turns it on by default with a price of a
// quarter on Settings; two identical API calls are a miss then a hit; the usage page shows the
// hit and the money it saved; clearing the cache makes the next call a miss again.
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import type OpenAI from "openai";
import { db } from "../../server/infra/db/client";
import { money } from "../../server/kernel/money";
import { screenshot, url, visit, watchConsole } from "./helpers";
import { signedUpOwner } from "./owner";

test.describe.configure({ mode: "serial" });

const MODEL = "local-chat-sim";
let context: BrowserContext;
let page: Page;
let consoleWatch: ReturnType<typeof watchConsole>;
let workspaceId = "";
let openai: OpenAI;

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  consoleWatch = watchConsole(page);
  ({ workspaceId, openai } = await signedUpOwner(page, "Cacher", "Cached workspace"));
});

test.afterEach(() => consoleWatch.expectNone());
test.afterAll(async () => {
  await context.close();
  await db.$disconnect();
});

const card = () => page.locator("section", { hasText: "Response cache" });
const ask = () => openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "cached from the dashboard" }], temperature: 0 }).withResponse();

test("an owner turns the cache on by default at a quarter of the price; the same call is then a miss and a hit", async ({}, info) => {
  await visit(page, url(`/w/${workspaceId}/settings`));
  await card().getByLabel("Use the cache by default").check();
  await card().getByLabel("Price of a hit").fill("0.25");
  await card().getByRole("button", { name: "Save cache settings" }).click();
  await expect(card().getByText("Saved.")).toBeVisible();
  await screenshot(page, "settings-cache", info);
  const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
  expect(ws.cacheDefault).toBe(true);
  expect(ws.cachePriceFraction.toString()).toBe("0.25");

  // The settings reach the gateway's processes by NOTIFY; the first call after may still bypass.
  await expect.poll(async () => (await ask()).response.headers.get("x-gateway-cache"), { timeout: 10_000 }).not.toBe("bypass");
  const hit = await ask();
  expect(hit.response.headers.get("x-gateway-cache")).toBe("hit");
  const event = await db.usageEvent.findUniqueOrThrow({ where: { id: hit.response.headers.get("x-request-id")! } });
  expect(event.cacheHit).toBe(true);
  expect(money(event.cacheSaved).gt(0)).toBe(true);
});

test("the usage page shows the hits and the money they saved", async ({}, info) => {
  await visit(page, url(`/w/${workspaceId}/usage`));
  const region = page.getByRole("region", { name: "Response cache" });
  await expect(region).toContainText(/Hits\s*[1-9]/);
  await expect(region).toContainText("Saved");
  await screenshot(page, "usage-cache", info);
});

test("clearing the cache from Settings makes the next call a miss", async () => {
  await visit(page, url(`/w/${workspaceId}/settings`));
  await card().getByRole("button", { name: "Clear the cache" }).click();
  await card().getByRole("button", { name: "Yes, clear" }).click();
  await expect(card().getByText(/Removed 1 cached answer\b/)).toBeVisible();
  // Every process drops the entries from its memory when the clear's NOTIFY arrives, milliseconds later.
  await expect.poll(async () => (await ask()).response.headers.get("x-gateway-cache"), { timeout: 5000 }).toBe("miss");
});
