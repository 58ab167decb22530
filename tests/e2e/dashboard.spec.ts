// The dashboard end to end, as its users go through it: one flow whose steps build on each other
// (sign-up, getting started, the setup link, credits, key, usage, members, playground, videos, nodes). Every main page
// is screenshotted into test-results/screenshots.
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import OpenAI from "openai";
import { issueSetupToken } from "../../server/identity/users/setup-token";
import { db } from "../../server/infra/db/client";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { ANTHROPIC_KEY, model, startAnthropicUpstream } from "../fakes/anthropic-upstream";
import { AZURE_KEY, startAzureUpstream } from "../fakes/azure-upstream";
import { person, screenshot, signUp, url, visit, watchConsole, type Person } from "./helpers";

test.describe.configure({ mode: "serial" });

const owner: Person = person("Owner");
let context: BrowserContext;
let page: Page;
let consoleWatch: ReturnType<typeof watchConsole>;
let workspaceId = "";
const ws = (section: string) => url(`/w/${workspaceId}/${section}`);

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  context = await browser.newContext();
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  page = await context.newPage();
  consoleWatch = watchConsole(page);
});

test.afterEach(() => consoleWatch.expectNone());
test.afterAll(() => context.close());

test("a user signs up, lands on getting started, and becomes the operator through the setup link", async ({}, info) => {
  await signUp(page, owner);
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  await screenshot(page, "workspace-new", info);
  await page.getByLabel("Workspace name").fill("Acme Research");
  await page.getByRole("button", { name: "Create workspace" }).click();
  await expect(page).toHaveURL(/\/w\/ws_\w+\/start$/);
  workspaceId = new URL(page.url()).pathname.split("/")[2]!;
  await expect(page.getByRole("heading", { name: "Get started" })).toBeVisible();
  // Signing up, even first, makes nobody an operator: no operator pages.
  await expect(page.getByText("Role: owner", { exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "Nodes" })).toHaveCount(0);
  // The install has no operator, so `npm start` would print a setup link: its opener becomes one.
  const token = await issueSetupToken();
  expect(token).not.toBeNull();
  await visit(page, url(`/setup/${token}`));
  await page.getByRole("button", { name: "Become the operator" }).click();
  await expect(page.getByRole("status").filter({ hasText: "You are now an operator" })).toBeVisible();
  await visit(page, ws("usage"));
  await expect(page.getByRole("link", { name: "Nodes" })).toBeVisible();
  await expect(page.getByText("Role: owner · operator")).toBeVisible();
  // The link was used up.
  await visit(page, url(`/setup/${token}`));
  await page.getByRole("button", { name: "Become the operator" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "not valid" })).toBeVisible();
});

test("the operator adds credits; the balance and the ledger show them", async ({}, info) => {
  // The page's first read of the balance is answered by the server at once, but reaches the page
  // only after the credits are added: the figures must still be fetched again (they once kept
  // showing what that first read saw).
  let held = false;
  await page.route("**/api/trpc/billing.overview*", async (route) => {
    if (held) return route.continue();
    held = true;
    const response = await route.fetch();
    await new Promise((r) => setTimeout(r, 2500));
    // The page may have given this request up by now (it cancels a read that a change made stale).
    await route.fulfill({ response }).catch(() => undefined);
  });
  await visit(page, ws("billing"));
  await page.getByLabel("Amount (USD)").fill("10");
  await page.getByLabel("Note").fill("first top-up");
  await page.getByRole("button", { name: "Add credits" }).click();
  await expect(page.getByLabel("Balance").getByText("$10", { exact: false }).first()).toBeVisible();
  await expect(page.getByRole("table").getByText("first top-up")).toBeVisible();
  await page.unroute("**/api/trpc/billing.overview*");
  await screenshot(page, "billing", info);
});

test("a key created on the keys page calls /v1/chat/completions; the call shows in the usage chart and table", async ({}, info) => {
  await visit(page, ws("keys"));
  await page.getByLabel("Name").fill("ci key");
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = (await page.getByTestId("new-key-secret").textContent())!.trim();
  expect(secret).toMatch(/^sk-gw-/);
  await page.getByRole("button", { name: "Copy" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await screenshot(page, "keys-new-secret", info);
  await page.getByRole("button", { name: "Done" }).click();
  // Shown once: gone from the page, and the list shows only the prefix.
  await expect(page.getByTestId("new-key-secret")).toHaveCount(0);
  await expect(page.getByRole("table").getByText("ci key")).toBeVisible();
  await expect(page.getByText(secret)).toHaveCount(0);
  await screenshot(page, "keys", info);

  const openai = new OpenAI({ apiKey: secret, baseURL: url("/v1"), maxRetries: 0 });
  const completion = await openai.chat.completions.create({ model: "local-chat-sim", messages: [{ role: "user", content: "Hello from the browser test" }] });
  expect(completion.usage!.total_tokens).toBeGreaterThan(0);

  await visit(page, ws("usage"));
  const requests = page.getByRole("region", { name: "Recent requests" });
  await expect(requests.getByRole("cell", { name: "/v1/chat/completions" })).toBeVisible();
  await expect(requests.getByRole("cell", { name: "local-chat-sim" })).toBeVisible();
  // The charts are drawn by the charting library with the call's data in them.
  await expect(page.locator(".recharts-surface").first()).toBeVisible();
  await expect(page.locator(".recharts-bar-rectangle, .recharts-area-area").first()).toBeVisible();
  await screenshot(page, "usage", info);

  // Tagged calls: the usage page groups their cost by a tag key and filters by a tag.
  await openai.chat.completions.create({ model: "local-chat-sim", messages: [{ role: "user", content: "a" }] }, { headers: { "x-gateway-tags": "team=ads" } });
  await openai.chat.completions.create({ model: "local-chat-sim", messages: [{ role: "user", content: "b" }] }, { headers: { "x-gateway-tags": "team=search" } });
  await visit(page, ws("usage?group=team"));
  const groups = page.getByTestId("tag-group");
  await expect(groups).toHaveCount(3); // ads, search, and the first call without the tag
  await expect(groups.filter({ hasText: "ads" })).toContainText("1");
  await expect(groups.filter({ hasText: "(no team)" })).toBeVisible();
  await page.getByLabel("Tag", { exact: true }).fill("team=search");
  await page.getByLabel("Tag", { exact: true }).press("Enter");
  await expect(groups).toHaveCount(1);
  await expect(groups.first()).toContainText("search");
  await screenshot(page, "usage-by-tag", info);
});

test("a second user invited by link joins as member, and the server refuses them an admin action", async ({ browser }, info) => {
  await visit(page, ws("members"));
  await page.getByLabel("Role", { exact: true }).selectOption("member");
  await page.getByRole("button", { name: "Invite" }).click();
  const link = await page.getByLabel("Invitation link").inputValue();
  expect(link).toMatch(/\/invite\/\S+$/);
  await screenshot(page, "members", info);

  const memberContext = await browser.newContext();
  const memberPage = await memberContext.newPage();
  const memberConsole = watchConsole(memberPage);
  try {
    const member = person("Member");
    await visit(memberPage, link);
    await expect(memberPage.getByRole("heading", { name: "Join Acme Research" })).toBeVisible();
    const signUpHref = await memberPage.getByRole("link", { name: "Create an account" }).getAttribute("href");
    expect(signUpHref).toMatch(/^\/signup\?callbackUrl=%2Finvite%2F/);
    await signUp(memberPage, member, signUpHref!);
    // Back on the invitation, signed in: accept it.
    await expect(memberPage).toHaveURL(/\/invite\//);
    await memberPage.getByRole("button", { name: "Accept invitation" }).click();
    await expect(memberPage).toHaveURL(new RegExp(`/w/${workspaceId}/usage$`));
    await expect(memberPage.getByText("Role: member")).toBeVisible();
    // Not an operator, so no operator pages.
    await expect(memberPage.getByRole("link", { name: "Nodes" })).toHaveCount(0);
    // The members page offers a member no invite form...
    await visit(memberPage, ws("members"));
    await expect(memberPage.getByRole("table").getByText(owner.email)).toBeVisible();
    await expect(memberPage.getByRole("button", { name: "Invite" })).toHaveCount(0);
    // ...and the server refuses the admin actions even when called directly, with the session.
    const call = (procedure: string, input: unknown) =>
      memberPage.request.post(url(`/api/trpc/${procedure}`), { headers: { "x-workspace-id": workspaceId }, data: input });
    const rename = await call("workspaces.rename", { name: "Taken over" });
    expect(rename.status()).toBe(403);
    expect((await rename.json()).error.data).toMatchObject({ code: "FORBIDDEN", gatewayCode: "permission_denied" });
    const invite = await call("workspaces.invite", { role: "admin", email: "" });
    expect(invite.status()).toBe(403);
    const credits = await call("billing.addCredits", { workspaceId, amount: "1000" });
    expect(credits.status()).toBe(403);
    await visit(page, ws("settings"));
    await expect(page.getByLabel("Workspace name")).toHaveValue("Acme Research");
    await screenshot(page, "settings", info);
    memberConsole.expectNone();
  } finally {
    await memberContext.close();
  }
});

test("a playground chat streams the reply and shows the turn's tokens and cost", async ({}, info) => {
  await visit(page, ws("playground"));
  await page.getByLabel("Model").selectOption("local-chat-sim");
  await page.getByLabel("Message").fill("Say hello to the playground");
  // Record every text the reply shows while it arrives: a streamed reply grows in several steps.
  await page.evaluate(() => {
    const seen = new Set<string>();
    (window as unknown as { replySnapshots: Set<string> }).replySnapshots = seen;
    new MutationObserver(() => {
      const reply = document.querySelector('[data-testid="assistant-message"]');
      if (reply?.textContent) seen.add(reply.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("user-message").first()).toContainText("Say hello to the playground");
  await expect(page.getByTestId("assistant-message").first()).not.toBeEmpty();
  await expect(page.getByTestId("turn-usage").first()).toHaveText(/\d+ input tokens · \d+ output tokens · \$\d+\.\d+/);
  const steps = await page.evaluate(() => (window as unknown as { replySnapshots: Set<string> }).replySnapshots.size);
  expect(steps).toBeGreaterThan(2);
  await screenshot(page, "playground", info);
});

test("a video job shows its progress, completes, and plays in the page", async ({}, info) => {
  await visit(page, ws("videos"));
  await page.getByLabel("Model").selectOption("local-video");
  await page.getByLabel("Prompt").fill("a red ball bouncing");
  await page.getByLabel("Seconds").fill("1");
  await page.getByRole("button", { name: "Create video" }).click();
  const job = page.getByTestId("video-job").first();
  await expect(job).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  const video = job.locator("video");
  await expect(video).toBeVisible();
  // The browser fetches the file (with Range requests) and plays it.
  const played = await video.evaluate(async (el: HTMLVideoElement) => {
    el.muted = true;
    await el.play();
    await new Promise((r) => setTimeout(r, 600));
    return { currentTime: el.currentTime, duration: el.duration, readyState: el.readyState };
  });
  expect(played.duration).toBeGreaterThan(0.5);
  expect(played.currentTime).toBeGreaterThan(0);
  expect(played.readyState).toBeGreaterThanOrEqual(2);
  const download = await job.getByRole("link", { name: "Download" }).getAttribute("href");
  const file = await page.request.get(url(download!));
  expect(file.status()).toBe(200);
  expect(file.headers()["content-type"]).toBe("video/mp4");
  await screenshot(page, "videos", info);
});

test("the models page lists the catalog with prices and video ranges", async ({}, info) => {
  await visit(page, ws("models"));
  await expect(page.locator('[data-testid="model-row"][data-model-id="local-chat-sim"]')).toBeVisible();
  await expect(page.locator('[data-testid="model-row"][data-model-id="local-video"]')).toBeVisible();
  await screenshot(page, "models", info);
});

test("an operator adds a node; it is listed online with its region and models, and in the network status", async ({}, info) => {
  // The node serves a model the catalog knows (one without a price card would not be linked).
  const fake: FakeUpstream = await startFakeUpstream("local-chat-sim");
  try {
    await visit(page, ws("nodes"));
    const form = page.getByRole("form", { name: "Add node" });
    await form.getByLabel("Name").fill("e2e-node");
    await form.getByLabel("Base URL").fill(fake.url);
    await form.getByLabel("City").fill("Lisbon");
    await form.getByLabel("Country").fill("PT");
    await form.getByRole("button", { name: "Add node" }).click();
    const row = page.getByTestId("node-row").filter({ hasText: "e2e-node" });
    await expect(row).toContainText("Lisbon");
    await expect(row).toContainText("local-chat-sim");
    await expect(row).toContainText("online", { timeout: 20_000 });
    await screenshot(page, "nodes", info);
    await visit(page, ws("network"));
    // The built-in node and the new one, in two regions.
    await expect(page.getByTestId("stat-nodes-online")).toHaveText("2", { timeout: 20_000 });
    await expect(page.getByTestId("stat-regions")).toHaveText("2");
    await expect(page.locator('[data-testid="model-availability"][data-model-id="local-chat-sim"]')).toContainText("available");
    await screenshot(page, "network", info);
  } finally {
    await fake.close();
  }
});

test("an operator adds an Anthropic node: its models wait for a price, and are served once priced", async ({}, info) => {
  const fake = await startAnthropicUpstream([model("e2e-claude")]);
  try {
    await visit(page, ws("nodes"));
    const form = page.getByRole("form", { name: "Add node" });
    await form.getByLabel("Name").fill("e2e-anthropic");
    await form.getByLabel("Wire format").selectOption("anthropic");
    await form.getByLabel("Base URL").fill(fake.url);
    await form.getByLabel("API key (optional)").fill(ANTHROPIC_KEY);
    await form.getByLabel("City").fill("Dublin");
    await form.getByLabel("Country").fill("IE");
    await form.getByRole("button", { name: "Add node" }).click();
    const row = page.getByTestId("node-row").filter({ hasText: "e2e-anthropic" });
    await expect(row.getByTestId("node-wire")).toHaveText("anthropic");
    await expect(row).toContainText(`${fake.url}/v1`);
    await expect(row).toContainText("e2e-claude");
    await expect(row).toContainText("online", { timeout: 20_000 });
    const price = page.getByRole("form", { name: "Price e2e-claude" });
    await expect(price).toBeVisible();
    await screenshot(page, "nodes-unpriced", info);
    await price.getByLabel("Input / 1M tokens (USD)").fill("3");
    await price.getByLabel("Output / 1M tokens (USD)").fill("15");
    await price.getByLabel("Cache write / 1M (USD)").fill("3.75");
    await price.getByRole("button", { name: "Set price" }).click();
    await expect(price).toBeHidden();
    await visit(page, ws("models"));
    const modelRow = page.locator('[data-testid="model-row"][data-model-id="e2e-claude"]');
    await expect(modelRow).toContainText("$3");
    await expect(modelRow).toContainText("$3.75");
    // Removed again, so no later page offers a model whose node is gone.
    await visit(page, ws("nodes"));
    await page.getByRole("button", { name: "Remove e2e-anthropic" }).click();
    await page.getByRole("button", { name: "Confirm removal" }).click();
    await expect(page.getByTestId("node-row").filter({ hasText: "e2e-anthropic" })).toHaveCount(0);
  } finally {
    await fake.close();
    await db.model.deleteMany({ where: { id: "e2e-claude" } });
  }
});

test("an operator adds an Azure OpenAI node with its api-version and deployment: shown with its settings, online, the key never shown", async ({}, info) => {
  const fake = await startAzureUpstream({ "chat-e2e-deployment": "gpt-4o" });
  try {
    await visit(page, ws("nodes"));
    const form = page.getByRole("form", { name: "Add node" });
    await form.getByLabel("Name").fill("e2e-azure");
    await form.getByLabel("Wire format").selectOption("azure");
    await form.getByLabel("Base URL").fill(fake.url);
    await form.getByLabel("API key (optional)").fill(AZURE_KEY);
    await form.getByLabel("API version (optional)").fill("2024-10-21");
    await form.getByLabel("Deployments").fill("local-chat-sim=chat-e2e-deployment");
    await form.getByLabel("City").fill("Amsterdam");
    await form.getByLabel("Country").fill("NL");
    await form.getByRole("button", { name: "Add node" }).click();
    const row = page.getByTestId("node-row").filter({ hasText: "e2e-azure" });
    await expect(row.getByTestId("node-wire")).toHaveText("azure");
    await expect(row.getByTestId("node-cloud")).toContainText("apiVersion 2024-10-21");
    await expect(row).toContainText("local-chat-sim");
    await expect(row).toContainText("online", { timeout: 20_000 });
    await expect(page.locator("body")).not.toContainText(AZURE_KEY);
    // The health check listed the resource's deployments with the key, on the deployments path.
    const listed = fake.requests.find((r) => r.path === "/openai/deployments");
    expect(listed?.headers["api-key"]).toBe(AZURE_KEY);
    await screenshot(page, "nodes-azure", info);
    await page.getByRole("button", { name: "Remove e2e-azure" }).click();
    await page.getByRole("button", { name: "Confirm removal" }).click();
    await expect(page.getByTestId("node-row").filter({ hasText: "e2e-azure" })).toHaveCount(0);
  } finally {
    await fake.close();
  }
});

test("on a phone-sized screen the menu opens, navigation works, and pages do not overflow sideways", async ({ browser }, info) => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await context.storageState() });
  const phonePage = await phone.newPage();
  const phoneConsole = watchConsole(phonePage);
  try {
    await visit(phonePage, ws("usage"));
    await expect(phonePage.getByRole("link", { name: "API keys" })).toBeHidden();
    await phonePage.getByRole("button", { name: "Menu" }).click();
    await phonePage.getByRole("link", { name: "API keys" }).click();
    await expect(phonePage).toHaveURL(/\/keys$/);
    for (const section of ["usage", "keys", "billing", "playground", "videos"]) {
      await visit(phonePage, ws(section));
      await expect(phonePage.getByRole("heading", { level: 1 })).toBeVisible();
      const overflow = await phonePage.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${section} overflows by ${overflow}px`).toBeLessThanOrEqual(0);
    }
    await screenshot(phonePage, "phone-videos", info);
    phoneConsole.expectNone();
  } finally {
    await phone.close();
  }
});

test("workspaces: a second one is created from the switcher, and the switcher moves between them", async ({}, info) => {
  await visit(page, ws("keys"));
  await page.getByLabel("Workspace", { exact: true }).selectOption({ label: "+ New workspace…" });
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  await page.getByLabel("Workspace name").fill("Side Project");
  await page.getByRole("button", { name: "Create workspace" }).click();
  await expect(page).toHaveURL(/\/w\/ws_\w+\/start$/);
  const second = new URL(page.url()).pathname.split("/")[2]!;
  expect(second).not.toBe(workspaceId);
  // Each workspace shows its own data: the new one has no keys yet.
  await visit(page, url(`/w/${second}/keys`));
  await expect(page.getByText("No API keys yet")).toBeVisible();
  await expect(page.getByText("ci key")).toHaveCount(0);
  await page.getByLabel("Workspace", { exact: true }).selectOption({ label: "Acme Research" });
  await expect(page).toHaveURL(new RegExp(`/w/${workspaceId}/keys$`));
  await expect(page.getByRole("table").getByText("ci key")).toBeVisible();
  await screenshot(page, "keys-after-switch", info);
});

test("signing out ends the session", async () => {
  await visit(page, ws("usage"));
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin/);
  await visit(page, ws("keys"));
  await expect(page).toHaveURL(/\/signin\?callbackUrl=/);
});
