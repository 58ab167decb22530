// The Logs page as a workspace's owner sees it: a served call and a refused one both listed newest
// first; the 4xx filter (kept in the URL across a reload) leaves the refused one; a row's side
// panel shows its fields and timings (total, upstream, first byte, gateway overhead) and says the
// bodies were not captured; a chat call, served or refused, offers "Open in playground" with its model.
// Then capture is turned on in Settings: a call's panel shows its request (redacted) and answer,
// and "Open in playground" replays its conversation.
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import type OpenAI from "openai";
import { db } from "../../server/infra/db/client";
import { listLogs } from "../../server/request-log/list-logs";
import { screenshot, url, visit, watchConsole } from "./helpers";
import { signedUpOwner } from "./owner";

test.describe.configure({ mode: "serial" });

const MODEL = "local-chat-sim";
let context: BrowserContext;
let page: Page;
let consoleWatch: ReturnType<typeof watchConsole>;
let workspaceId = "";
let served = "";
let refused = "";
let secret = "";
let openai: OpenAI;

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  consoleWatch = watchConsole(page);
  ({ workspaceId, secret, openai } = await signedUpOwner(page, "Logger", "Logged workspace"));
  const ok = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hello" }] }, { headers: { "x-gateway-tags": "team=e2e" } }).withResponse();
  served = ok.response.headers.get("x-request-id")!;
  const no = await fetch(`${process.env.E2E_BASE_URL}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "no-such-model", messages: [{ role: "user", content: "x" }] }),
  });
  expect(no.status).toBe(404);
  refused = no.headers.get("x-request-id")!;
  // The log's writer flushes behind the answers: wait for both rows before opening the page.
  await expect.poll(async () => (await listLogs(workspaceId, {})).logs.length, { timeout: 10_000 }).toBe(2);
});

test.afterEach(() => consoleWatch.expectNone());
test.afterAll(async () => {
  await context.close();
  await db.$disconnect();
});

const row = (id: string) => page.locator(`tr[data-request-id="${id}"]`);
const panel = () => page.getByRole("dialog", { name: "Request details" });

test("both calls are listed newest first; the 4xx filter, kept in the URL, leaves the refused one", async ({}, info) => {
  await visit(page, url(`/w/${workspaceId}/logs`));
  await expect(page.getByRole("heading", { level: 1, name: "Logs" })).toBeVisible();
  const rows = page.locator("tr[data-request-id]");
  await expect(rows).toHaveCount(2);
  expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-request-id")))).toEqual([refused, served]);
  await expect(row(served)).toContainText("200");
  await expect(row(served)).toContainText("team=e2e");
  await expect(row(refused)).toContainText("404");
  await expect(row(refused)).toContainText("model_not_found");

  await page.getByLabel("Status").selectOption("4xx");
  await expect(page).toHaveURL(/[?&]status=4xx/);
  await expect(rows).toHaveCount(1);
  await expect(row(refused)).toBeVisible();
  await page.reload();
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await expect(page.getByLabel("Status")).toHaveValue("4xx");
  await expect(rows).toHaveCount(1);
  await expect(row(refused)).toBeVisible();
  await screenshot(page, "logs-4xx", info);
});

test("a refused row's panel shows its fields and timings, and that bodies were not captured", async ({}, info) => {
  await row(refused).getByRole("button").click();
  await expect(panel()).toBeVisible();
  await expect(panel()).toContainText(refused);
  await expect(panel()).toContainText("model_not_found");
  await expect(panel()).toContainText("no-such-model");
  const timings = panel().getByRole("region", { name: "Timings" });
  await expect(timings).toContainText(/Total\s*\d[\d,]* ms/);
  await expect(timings).toContainText(/Upstream\s*— \(no node was called\)/);
  await expect(timings).toContainText("Gateway overhead");
  await expect(panel()).toContainText("Bodies were not captured for this call");
  await expect(panel().getByRole("link", { name: "Settings" })).toHaveAttribute("href", `/w/${workspaceId}/settings`);
  await expect(panel().getByRole("link", { name: "Open in playground" })).toHaveAttribute("href", `/w/${workspaceId}/playground?model=no-such-model`);
  await screenshot(page, "logs-detail-refused", info);
  await page.keyboard.press("Escape");
  await expect(panel()).toBeHidden();
});

test("a served chat call's panel gives upstream, first byte and the gateway's overhead, and opens the playground with its model", async ({}, info) => {
  await page.getByLabel("Status").selectOption("2xx");
  await expect(page.locator("tr[data-request-id]")).toHaveCount(1);
  await row(served).getByRole("button").click();
  const timings = panel().getByRole("region", { name: "Timings" });
  for (const label of ["Total", "Upstream", "First byte"]) await expect(timings).toContainText(new RegExp(`${label}\\s*\\d[\\d,]* ms`));
  await expect(timings).toContainText(/Gateway overhead\s*\d[\d,]* ms \(total − upstream\)/);
  await expect(panel()).toContainText("team=e2e");
  await expect(panel().getByRole("link", { name: "Open in playground" })).toHaveAttribute("href", `/w/${workspaceId}/playground?model=${MODEL}`);
  await screenshot(page, "logs-detail-served", info);
  await panel().getByRole("button", { name: "Close" }).click();
  await expect(panel()).toBeHidden();
});

test("with capture turned on in Settings, a call's panel shows its request (redacted) and answer, and the playground replays it", async ({}, info) => {
  await visit(page, url(`/w/${workspaceId}/settings`));
  const card = page.locator("section", { hasText: "Request and answer capture" });
  await card.getByLabel("Keep request and answer bodies").check();
  await card.getByLabel("Redaction patterns").fill("acct-[0-9]+");
  await card.getByRole("button", { name: "Save capture settings" }).click();
  await expect(card.getByText("Saved.")).toBeVisible();
  await expect.poll(async () => (await db.workspace.findUniqueOrThrow({ where: { id: workspaceId } })).captureBodies).toBe(true);

  const { data, response } = await openai.chat.completions
    .create({ model: MODEL, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Account acct-4242 says hello" }] })
    .withResponse();
  const id = response.headers.get("x-request-id")!;
  await expect.poll(async () => (await listLogs(workspaceId, {})).logs.find((l) => l.request_id === id)?.captured ?? null, { timeout: 10_000 }).toBe(true);

  await visit(page, url(`/w/${workspaceId}/logs`));
  await row(id).getByRole("button").click();
  const request = panel().getByLabel("Request", { exact: true });
  await expect(request).toContainText("Be brief.");
  await expect(request).toContainText("Account [redacted] says hello");
  await expect(request).not.toContainText("acct-4242");
  await expect(panel().getByLabel("Answer", { exact: true })).toContainText(data.choices[0]!.message.content!.slice(0, 40));
  await screenshot(page, "logs-detail-captured", info);
  await panel().getByRole("link", { name: "Open in playground" }).click();
  await expect(page).toHaveURL(new RegExp(`/playground\\?.*replay=${id}`));
  await expect(page.getByLabel("System prompt")).toHaveValue("Be brief.");
  await expect(page.getByLabel("Message")).toHaveValue("Account [redacted] says hello");
  await screenshot(page, "playground-replay", info);
});
