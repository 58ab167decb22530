// A newcomer's first run, in Chromium: sign up, create a workspace, land on getting started
// (nothing ticked), see on Billing that there are no credits yet and how to get them (the
// operator's words), create a key there, copy a snippet with the absolute base URL and the key,
// make a first call with the official openai SDK once an operator granted credits, and see the
// checklist tick itself and the call in Usage.
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import OpenAI from "openai";
import { addCredits } from "../../server/ledger/add-credits";
import { setCreditsHelp } from "../../server/ledger/credits-help";
import { person, screenshot, signUp, url, visit, watchConsole } from "./helpers";

test.describe.configure({ mode: "serial" });

const HELP = "Email billing@acme.test with your workspace id to buy credits.";
const newcomer = person("Newcomer");
let context: BrowserContext;
let page: Page;
let consoleWatch: ReturnType<typeof watchConsole>;
let workspaceId = "";
const ws = (section: string) => url(`/w/${workspaceId}/${section}`);
const step = (name: string) => page.getByTestId(`step-${name}`);

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  context = await browser.newContext();
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  page = await context.newPage();
  consoleWatch = watchConsole(page);
});

test.afterEach(() => consoleWatch.expectNone());
test.afterAll(async () => {
  await setCreditsHelp("");
  await context.close();
});

test("a new workspace opens on getting started, nothing ticked", async ({}, info) => {
  await signUp(page, newcomer);
  await page.getByLabel("Workspace name").fill("First Run");
  await page.getByRole("button", { name: "Create workspace" }).click();
  await expect(page).toHaveURL(/\/w\/ws_\w+\/start$/);
  workspaceId = new URL(page.url()).pathname.split("/")[2]!;
  for (const name of ["key", "credits", "call", "usage"]) await expect(step(name)).toHaveAttribute("data-done", "false");
  await expect(page.getByRole("link", { name: "Get started" })).toHaveAttribute("aria-current", "page");
  await screenshot(page, "start-empty", info);
});

test("the billing page of a workspace without credits says how to get them, in the operator's words", async ({}, info) => {
  await visit(page, ws("billing"));
  const notice = page.getByTestId("credits-help");
  await expect(notice).toContainText("This workspace has no credits yet");
  await expect(notice).toContainText("An operator of this gateway adds credits");
  await setCreditsHelp(HELP);
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("credits-help")).toContainText(HELP, { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await screenshot(page, "billing-no-credits", info);
});

test("a key made on getting started fills the snippets, with the absolute base URL", async () => {
  await visit(page, ws("start"));
  await page.getByLabel("Name").fill("first key");
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = (await page.getByTestId("new-key-secret").textContent())!.trim();
  expect(secret).toMatch(/^sk-gw-/);
  await expect(step("key")).toHaveAttribute("data-done", "true");
  const baseUrl = `${process.env.E2E_BASE_URL}/v1`;
  await expect(page.getByTestId("base-url")).toHaveText(baseUrl);
  const curl = (await page.getByTestId("snippet").textContent())!;
  expect(curl).toContain(`curl ${baseUrl}/chat/completions`);
  expect(curl).toContain(`Authorization: Bearer ${secret}`);
  await page.getByRole("tab", { name: "OpenAI SDK (Python)" }).click();
  await expect(page.getByTestId("snippet")).toContainText(`client = OpenAI(base_url="${baseUrl}", api_key="${secret}")`);
  await page.getByRole("tab", { name: "AI SDK", exact: true }).click();
  await expect(page.getByTestId("snippet")).toContainText(`createOpenAI({ baseURL: "${baseUrl}", apiKey: "${secret}" })`);
  await page.getByRole("tab", { name: "OpenAI SDK (JavaScript)" }).click();
  const js = (await page.getByTestId("snippet").textContent())!;
  await page.getByRole("button", { name: "Copy" }).last().click();
  await expect(page.getByText("Copied to the clipboard.")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(js);

  // The snippet's settings, as a user pastes them: the call is refused until there are credits,
  // and the API says how to get them.
  const model = /model: "([^"]+)"/.exec(js)![1]!;
  const openai = new OpenAI({ baseURL: /baseURL: "([^"]+)"/.exec(js)![1], apiKey: /apiKey: "([^"]+)"/.exec(js)![1], maxRetries: 0 });
  await expect(openai.chat.completions.create({ model, messages: [{ role: "user", content: "hello" }] })).rejects.toMatchObject({
    status: 402,
    error: { message: `This workspace has no credits yet. ${HELP}` },
  });

  // An operator grants credits: the checklist ticks itself.
  await addCredits({ workspaceId, amount: "5", note: "welcome" });
  await expect(step("credits")).toHaveAttribute("data-done", "true");

  const completion = await openai.chat.completions.create({ model, messages: [{ role: "user", content: "Say hello in five words." }] });
  expect(completion.choices[0]!.message.content).toBeTruthy();
  await expect(step("call")).toHaveAttribute("data-done", "true");
  await expect(step("usage")).toHaveAttribute("data-done", "true");
});

test("the first call is in Usage", async ({}, info) => {
  await visit(page, ws("start"));
  await step("usage").getByRole("link", { name: "Usage" }).click();
  await expect(page).toHaveURL(/\/usage$/);
  await expect(page.getByRole("table", { name: "Recent requests" }).getByText("local-chat-sim").first()).toBeVisible();
  await screenshot(page, "usage-first-call", info);
});
