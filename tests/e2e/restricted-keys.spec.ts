// A restricted key made on the keys page: "All" is the default, "Restricted" shows the operation
// groups to tick and a models list; the table shows what the key may call, and the gateway holds
// the key to it.
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import OpenAI from "openai";
import { person, screenshot, signUp, url, visit, watchConsole } from "./helpers";

test.describe.configure({ mode: "serial" });

let context: BrowserContext;
let page: Page;
let consoleWatch: ReturnType<typeof watchConsole>;

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  context = await browser.newContext();
  page = await context.newPage();
  consoleWatch = watchConsole(page);
});

test.afterEach(() => consoleWatch.expectNone());
test.afterAll(() => context.close());

test("an owner creates a key restricted to text and embeddings on one model; the table shows it and the API enforces it", async ({}, info) => {
  await signUp(page, person("Restrictor"));
  await page.getByLabel("Workspace name").fill("Narrow Keys Co");
  await page.getByRole("button", { name: "Create workspace" }).click();
  await expect(page).toHaveURL(/\/w\/ws_\w+\/start$/);
  const workspaceId = new URL(page.url()).pathname.split("/")[2]!;

  await visit(page, url(`/w/${workspaceId}/keys`));
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await expect(page.getByRole("radio", { name: "All (every operation)" })).toBeChecked();
  await expect(page.getByRole("group", { name: "Operation groups" })).toHaveCount(0);

  await page.getByLabel("Name", { exact: true }).fill("narrow");
  await page.getByRole("radio", { name: "Restricted" }).check();
  // Restricted with nothing ticked is refused on the page, before any request.
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("Tick at least one operation group, or choose All.")).toBeVisible();

  const groups = page.getByRole("group", { name: "Operation groups" });
  await groups.getByRole("checkbox", { name: /^text / }).check();
  await groups.getByRole("checkbox", { name: /^embeddings / }).check();
  await page.getByRole("textbox", { name: "Models it may call" }).fill("local-embed-ngram");
  await screenshot(page, "keys-restricted-form", info);
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = (await page.getByTestId("new-key-secret").textContent())!.trim();
  await page.getByRole("button", { name: "Done" }).click();

  const row = page.getByRole("row").filter({ hasText: "narrow" });
  await expect(row.getByTestId("key-permissions")).toHaveText("text, embeddings");
  await expect(row.getByText("models: local-embed-ngram")).toBeVisible();
  await screenshot(page, "keys-restricted", info);

  const openai = new OpenAI({ apiKey: secret, baseURL: url("/v1"), maxRetries: 0 });
  await expect(openai.models.list()).rejects.toMatchObject({ status: 403, code: "insufficient_permissions" });
  await expect(openai.images.generate({ model: "local-image", prompt: "x" })).rejects.toMatchObject({ status: 403, code: "insufficient_permissions" });
  // `text` is granted: an unknown response is simply not found.
  await expect(openai.responses.retrieve("resp_unknown")).rejects.toMatchObject({ status: 404 });
});
