// Webhooks in the dashboard, as an owner adds one: the URL, the events and a threshold; the
// signing secret shown once (and never again after "Done" or a reload); the webhook's deliveries
// with their attempts. The delivery is written straight into the test database (sending it for
// real is tested in tests/api/alerts.test.ts).
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { db } from "../../server/infra/db/client";
import { open } from "../../server/infra/secret-box";
import { person, screenshot, signUp, url, visit, watchConsole } from "./helpers";

test.describe.configure({ mode: "serial" });

let context: BrowserContext;
let page: Page;
let consoleWatch: ReturnType<typeof watchConsole>;
let workspaceId = "";

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  context = await browser.newContext();
  page = await context.newPage();
  consoleWatch = watchConsole(page);
  const who = person("Hooks");
  await signUp(page, who);
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  const user = await db.user.findUniqueOrThrow({ where: { email: who.email } });
  ({ workspace: { id: workspaceId } } = await createWorkspace({ name: "Webhooks workspace", credits: "5", ownerUserId: user.id }));
});

test.afterEach(() => consoleWatch.expectNone());
test.afterAll(async () => {
  await context.close();
  await db.$disconnect();
});

test("an owner adds a webhook and sees its signing secret once, then its deliveries with their attempts", async ({}, info) => {
  await visit(page, url(`/w/${workspaceId}/webhooks`));
  await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
  await expect(page.getByText("No webhooks yet")).toBeVisible();

  await page.getByLabel("URL").fill("https://alerts.example.com/gateway");
  await page.getByRole("checkbox", { name: /balance\.low/ }).check();
  await page.getByRole("checkbox", { name: /node\.down/ }).check();
  await page.getByLabel("Balance below (USD)").fill("2.5");
  await page.getByRole("button", { name: "Add webhook" }).click();

  const shown = page.getByTestId("webhook-secret");
  await expect(shown).toHaveText(/^whsec_\w+$/);
  const secret = (await shown.textContent())!;
  const row = await db.webhook.findFirstOrThrow({ where: { workspaceId } });
  expect(row).toMatchObject({ url: "https://alerts.example.com/gateway", events: ["balance.low", "node.down"] });
  expect(row.balanceBelow?.toString()).toBe("2.5");
  expect(open(row.secretEncrypted)).toBe(secret);
  await screenshot(page, "webhooks-secret", info);

  // Once: gone after "Done", and not on the page after a reload either.
  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("webhook-secret")).toHaveCount(0);
  await page.reload();
  await expect(page.getByText("https://alerts.example.com/gateway")).toBeVisible();
  expect(await page.content()).not.toContain(secret);

  await db.webhookDelivery.create({
    data: { id: "whd_e2e_1", webhookId: row.id, eventId: "balance.low:e2e", eventType: "balance.low", payload: {}, status: "delivered", attempts: 3, lastStatus: 200, deliveredAt: new Date() },
  });
  await page.getByRole("button", { name: "Deliveries" }).click();
  const delivery = page.getByRole("table", { name: "Recent deliveries" }).getByRole("row").nth(1);
  await expect(delivery).toContainText("balance.low");
  await expect(delivery).toContainText("delivered");
  await expect(delivery.getByRole("cell").nth(2)).toHaveText("3");
  await screenshot(page, "webhooks-deliveries", info);
});
