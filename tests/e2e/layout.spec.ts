// Every dashboard page at 1280 px wide, with data in its tables: nothing overflows the page
// sideways (wide tables scroll in their own box). Money axes read as currency with distinct ticks,
// and the models page says what each type is priced and limited in.
import { expect, test, type Browser, type Page } from "@playwright/test";
import OpenAI from "openai";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { db } from "../../server/infra/db/client";
import { person, signUp, url, visit, watchConsole } from "./helpers";

test.describe.configure({ mode: "serial" });

const PAGES = ["start", "usage", "logs", "keys", "plans", "playground", "videos", "batches", "fine-tuning", "files", "models", "billing", "members", "settings", "webhooks", "routes", "guardrails", "tools", "audit", "network", "nodes", "x402"];

let page: Page;
let workspaceId = "";
let consoleWatch: ReturnType<typeof watchConsole>;

/** How far the page reaches past the window sideways, in px (0: nothing overflows). */
const overflow = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  consoleWatch = watchConsole(page);
  const who = person("Wide");
  await signUp(page, who);
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  const user = await db.user.update({ where: { email: who.email }, data: { isOperator: true } });
  const { workspace, apiKey } = await createWorkspace({ name: "A workspace with a rather long name to fill the switcher", credits: "20", ownerUserId: user.id, withKey: true });
  workspaceId = workspace.id;
  // Rows for the tables and bars for the charts: calls of several models, each priced differently.
  const openai = new OpenAI({ baseURL: `${process.env.E2E_BASE_URL}/v1`, apiKey: apiKey!.secret, maxRetries: 0 });
  for (let i = 0; i < 3; i++) await openai.chat.completions.create({ model: "local-chat-sim", messages: [{ role: "user", content: `a fairly long question number ${i} about gateways and their pricing` }] });
  await openai.embeddings.create({ model: "local-embed-ngram", input: "wide tables scroll in their own box" });
  await openai.audio.speech.create({ model: "local-tts", voice: "alloy", input: "A few words." });
});

test.afterEach(() => consoleWatch.expectNone());

test("no dashboard page overflows at 1280 px", async () => {
  const wide: Record<string, number> = {};
  for (const section of PAGES) {
    await visit(page, url(`/w/${workspaceId}/${section}`));
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    await page.waitForLoadState("networkidle");
    wide[section] = await overflow(page);
  }
  for (const p of ["/workspaces/new"]) {
    await visit(page, url(p));
    wide[p] = await overflow(page);
  }
  expect(wide).toEqual(Object.fromEntries(Object.keys(wide).map((k) => [k, 0])));
});

test("money axes are currency with distinct ticks, never exponents", async () => {
  await visit(page, url(`/w/${workspaceId}/usage`));
  for (const title of ["Cost per day", "Cost per model"]) {
    const figure = page.locator("figure").filter({ has: page.getByRole("heading", { name: title }) });
    // The value axis's ticks: the ones in dollars (the other axis names days or models).
    const ticks = figure.locator(".recharts-cartesian-axis-tick-value").filter({ hasText: /^\$/ });
    await expect(ticks.first()).toBeVisible();
    const texts = (await ticks.allTextContents()).map((t) => t.trim());
    expect(texts.length, title).toBeGreaterThan(2);
    expect(new Set(texts).size, `${title}: ${texts.join(" ")}`).toBe(texts.length);
    for (const t of texts) expect(t).toMatch(/^\$\d{1,3}(,\d{3})*(\.\d+)?$/);
  }
});

test("the models page says each type's unit", async () => {
  await visit(page, url(`/w/${workspaceId}/models`));
  const row = (id: string) => page.locator(`[data-model-id="${id}"]`);
  await expect(row("local-chat-sim")).toContainText("priced per 1M tokens");
  await expect(row("local-embed-ngram")).toContainText("priced per 1M input tokens");
  await expect(row("local-tts")).toContainText("priced per 1M characters of input");
  await expect(row("local-stt")).toContainText("priced per second of audio");
  await expect(row("local-image")).toContainText("priced per image");
  await expect(row("local-video")).toContainText("priced per video second");
  for (const id of ["local-tts", "local-stt", "local-image", "local-video"]) {
    await expect(row(id)).not.toContainText("1 tokens");
    await expect(row(id)).not.toContainText("max output 1");
  }
});
