// Plans in the dashboard, as an owner goes through them: create a plan, edit it, put a key on it,
// watch an end user's session and budget and revoke the session, then filter usage by that end
// user. The session is minted and the usage written straight into the test database (the request
// path that does it for real is tested elsewhere).
import { chargeUsage } from "../helpers-usage";
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { mintSession } from "../../server/identity/sessions/mint-session";
import { db } from "../../server/infra/db/client";
import { newId } from "../../server/kernel/ids";
import { person, screenshot, signUp, url, visit, watchConsole } from "./helpers";

test.describe.configure({ mode: "serial" });

const SUBJECT = "end-user-42";
let context: BrowserContext;
let page: Page;
let consoleWatch: ReturnType<typeof watchConsole>;
let workspaceId = "";
let planId = "";
const ws = (section: string) => url(`/w/${workspaceId}/${section}`);

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  context = await browser.newContext();
  page = await context.newPage();
  consoleWatch = watchConsole(page);
});

test.afterEach(() => consoleWatch.expectNone());
test.afterAll(async () => {
  await context.close();
  await db.$disconnect();
});

/** At 1280 px neither the page nor any of its tables scrolls sideways. */
async function expectNoSidewaysScroll() {
  const { overflow, tables } = await page.evaluate(() => ({
    overflow: document.documentElement.scrollWidth - window.innerWidth,
    tables: [...document.querySelectorAll("table")].map((t) => ({
      name: t.caption?.textContent ?? "",
      width: Math.round(t.getBoundingClientRect().width),
      overflow: t.parentElement!.scrollWidth - t.parentElement!.clientWidth,
    })),
  }));
  const widths = tables.map((t) => `"${t.name}" ${t.width}px`).join(", ");
  expect(overflow, `the page overflows by ${overflow}px (tables: ${widths})`).toBeLessThanOrEqual(0);
  for (const t of tables) expect(t.overflow, `table "${t.name}" overflows by ${t.overflow}px`).toBeLessThanOrEqual(0);
}

test("an owner creates a plan and sees it listed", async ({}, info) => {
  await signUp(page, person("Planner"));
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  await page.getByLabel("Workspace name").fill("Plans Co");
  await page.getByRole("button", { name: "Create workspace" }).click();
  await expect(page).toHaveURL(/\/w\/ws_\w+\/start$/);
  workspaceId = new URL(page.url()).pathname.split("/")[2]!;

  await page.getByRole("link", { name: "Plans" }).click();
  await expect(page).toHaveURL(/\/plans$/);
  await expect(page.getByText("No plans yet")).toBeVisible();
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  const form = page.getByRole("form", { name: "Create a plan" });
  await form.getByLabel("Plan name").fill("Starter");
  await form.getByLabel("Models").fill("local-chat-sim");
  await form.getByLabel("Requests per minute").fill("60");
  await form.getByLabel("Daily cap (USD)").fill("2");
  await form.getByLabel("Monthly cap (USD)").fill("20");
  await form.getByLabel("Token lifetime").fill("2");
  await form.getByRole("button", { name: "Create plan" }).click();

  const row = page.getByTestId("plan-row").filter({ hasText: "Starter" });
  await expect(row).toContainText("local-chat-sim");
  await expect(row).toContainText("60 rpm");
  await expect(row).toContainText("$2.00/day · $20.00/month");
  await expect(row).toContainText("2 hours");
  planId = (await row.getAttribute("data-plan-id"))!;
  expect(planId).toMatch(/^plan_/);
  // The form is cleared for the next plan.
  await expect(form.getByLabel("Plan name")).toHaveValue("");
  await expectNoSidewaysScroll();
});

test("the plan is edited in place", async () => {
  await visit(page, ws("plans"));
  await page.getByRole("button", { name: "Edit Starter" }).click();
  const form = page.getByRole("form", { name: "Edit Starter" });
  await expect(form.getByLabel("Requests per minute")).toHaveValue("60");
  await expect(form.getByLabel("Unit")).toHaveValue("hours");
  await form.getByLabel("Requests per minute").fill("120");
  await form.getByLabel("Concurrent requests").fill("3");
  await form.getByLabel("Monthly cap (USD)").fill("");
  await form.getByRole("button", { name: "Save plan" }).click();
  await expect(form).toHaveCount(0);
  const row = page.getByTestId("plan-row").filter({ hasText: "Starter" });
  await expect(row).toContainText("120 rpm · 3 concurrent");
  await expect(row).toContainText("$2.00/day");
  await expect(row).not.toContainText("/month");
});

test("a key is created on the plan, and another one is moved onto it", async () => {
  await visit(page, ws("keys"));
  await page.getByLabel("Name").fill("plan key");
  await page.getByLabel("Plan", { exact: true }).selectOption({ label: "Starter" });
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-key-secret")).toBeVisible();
  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.getByLabel("Plan of plan key")).toHaveValue(planId);

  await page.getByLabel("Name").fill("plain key");
  await page.getByRole("button", { name: "Create key" }).click();
  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.getByLabel("Plan of plain key")).toHaveValue("");
  await page.getByLabel("Plan of plain key").selectOption({ label: "Starter" });
  await expect(page.getByLabel("Plan of plain key")).toBeEnabled();
  await visit(page, ws("keys"));
  await expect(page.getByLabel("Plan of plain key")).toHaveValue(planId);
  await expectNoSidewaysScroll();
});

test("an end user's alive session and budget show on the plans page, and the session is revoked", async ({}, info) => {
  await mintSession({ workspaceId, keyId: null }, { plan: planId, subject: SUBJECT });
  const now = new Date();
  await db.spendCounter.createMany({
    data: [
      { workspaceId, counter: `subject:${SUBJECT}|day:${now.toISOString().slice(0, 10)}`, spent: "0.5" },
      { workspaceId, counter: `subject:${SUBJECT}|month:${now.toISOString().slice(0, 7)}`, spent: "1.25" },
    ],
  });

  await visit(page, ws("plans"));
  const row = page.getByTestId("plan-row").filter({ hasText: "Starter" });
  await expect(row.getByTestId("alive-sessions")).toHaveText("1 alive");
  const budgets = page.getByRole("region", { name: "Subject budgets" });
  const budget = budgets.getByTestId("budget-row").filter({ hasText: SUBJECT });
  await expect(budget).toContainText("Starter");
  await expect(budget).toContainText("$0.50 of $2.00");
  await expect(budget).toContainText("$1.50 left");
  await expect(budget).toContainText("$1.25 · no cap");
  await expect(page.getByRole("region", { name: "Key budgets" }).getByTestId("budget-row")).toHaveCount(2);

  await page.getByRole("button", { name: "Sessions of Starter" }).click();
  const session = page.getByTestId("session-row").filter({ hasText: SUBJECT });
  await expect(session).toBeVisible();
  await expectNoSidewaysScroll();
  await screenshot(page, "plans", info);
  await session.getByRole("button", { name: `Revoke the session of ${SUBJECT}` }).click();
  await session.getByRole("button", { name: "Yes, revoke" }).click();
  await expect(page.getByText("No alive sessions")).toBeVisible();
  await expect(row.getByTestId("alive-sessions")).toHaveText("0 alive");
  const stored = await db.planSession.findFirstOrThrow({ where: { workspaceId, subject: SUBJECT } });
  expect(stored.revokedAt).not.toBeNull();
});

test("usage is filtered by subject, and the filter is kept in the URL", async ({}, info) => {
  const event = (subject: string | null, cost: string, ago: number) => ({
    id: newId("req"),
    workspaceId,
    modelId: "local-chat-sim",
    endpoint: "/v1/chat/completions",
    inputTokens: 12,
    outputTokens: 30,
    cost,
    planId: subject ? planId : null,
    subject,
    createdAt: new Date(Date.now() - ago),
  });
  await chargeUsage([event(SUBJECT, "0.5", 3000), event("someone-else", "0.25", 2000), event(null, "1", 1000)]);

  await visit(page, ws("usage"));
  const requests = page.getByRole("region", { name: "Recent requests" });
  await expect(requests.getByRole("row")).toHaveCount(4);
  await expect(page.getByLabel("Plan", { exact: true }).getByRole("option", { name: "Starter" })).toHaveCount(1);
  await page.getByLabel("Subject").fill(SUBJECT);
  await page.getByLabel("Subject").press("Enter");
  await expect(page).toHaveURL(new RegExp(`[?&]subject=${SUBJECT}`));
  await expect(requests.getByRole("row")).toHaveCount(2);
  const caller = requests.getByRole("row").nth(1).getByRole("cell").nth(2);
  await expect(caller.getByRole("button", { name: SUBJECT })).toBeVisible();
  await expect(caller).toContainText("session token · plan Starter");
  await expect(page.getByLabel("Totals").getByText("$0.50")).toBeVisible();
  await expect(page.getByRole("link", { name: "Export CSV" })).toHaveAttribute("href", new RegExp(`subject=${SUBJECT}`));

  // Reloading keeps the filter; the plan filter narrows alike.
  await visit(page, page.url());
  await expect(page.getByLabel("Subject")).toHaveValue(SUBJECT);
  await expect(requests.getByRole("row")).toHaveCount(2);
  await page.getByLabel("Subject").fill("");
  await page.getByLabel("Subject").press("Enter");
  await page.getByLabel("Plan", { exact: true }).selectOption({ label: "Starter" });
  await expect(page).toHaveURL(new RegExp(`[?&]plan=${planId}`));
  await expect(requests.getByRole("row")).toHaveCount(3);
  await expectNoSidewaysScroll();
  await screenshot(page, "usage-by-plan", info);
  // A subject in the table filters by it.
  await requests.getByRole("button", { name: "someone-else" }).click();
  await expect(page).toHaveURL(/[?&]subject=someone-else/);
  await expect(page.getByLabel("Subject")).toHaveValue("someone-else");
  await expect(requests.getByRole("row")).toHaveCount(2);

  const csv = await page.request.get(url(`/api/usage/export?workspaceId=${workspaceId}&subject=${SUBJECT}`));
  expect(csv.status()).toBe(200);
  const lines = (await csv.text()).split("\r\n").filter(Boolean);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/,plan_id,subject,cache_write_tokens,usage_estimated,tags,cache_hit,cache_saved_usd$/);
  expect(lines[1]).toMatch(new RegExp(`,${planId},${SUBJECT},0,false,,false,0$`));
});
