// The Tools page, as an owner uses it: the gateway's /mcp URL and Claude Code's command to connect;
// a stand-in MCP server (official SDK) added through the form, listed as the workspace's with its
// status, price and tools under their qualified names; a tool priced in place and cleared again; a
// server that does not answer added as down with its error shown; a member sees the servers without
// any control that changes them; the owner removes the servers after confirming.
import { expect, test, type Page } from "@playwright/test";
import { db } from "../../server/infra/db/client";
import { startStandInMcpServer, type StandInMcpServer } from "../mcp-fixtures";
import { person, screenshot, signUp, url, visit, watchConsole } from "./helpers";
import { ownerSuite } from "./owner";

test.describe.configure({ mode: "serial" });

const owner = ownerSuite("Toolsmith", "Tooled workspace");
let standIn: StandInMcpServer;

test.beforeAll(async () => {
  standIn = await startStandInMcpServer();
});
test.afterAll(async () => {
  await standIn.close();
});

const toolsPage = () => url(`/w/${owner.workspaceId}/tools`);
const card = (p: Page, name: string) => p.locator(`[data-testid="mcp-server"][data-server-name="${name}"]`);
const addForm = (p: Page) => p.getByRole("form", { name: "Add server" });

test("the page says how to connect a client, and the owner adds a server whose tools are listed", async ({}, info) => {
  await visit(owner.page, toolsPage());
  await expect(owner.page.getByRole("heading", { level: 1, name: "Tools" })).toBeVisible();
  await expect(owner.page.getByText("No MCP servers yet")).toBeVisible();
  // The navigation lists the page right after Guardrails.
  const labels = (await owner.page.getByRole("navigation", { name: "Dashboard" }).getByRole("link").allTextContents()).map((l) => l.trim());
  expect(labels.indexOf("Tools")).toBe(labels.indexOf("Guardrails") + 1);
  const origin = new URL(process.env.E2E_BASE_URL!).origin;
  await expect(owner.page.getByTestId("mcp-url")).toHaveText(`${origin}/mcp`);
  await expect(owner.page.getByTestId("mcp-command")).toHaveText(`claude mcp add --transport http gateway ${origin}/mcp --header "Authorization: Bearer $KEY"`);

  const form = addForm(owner.page);
  await form.getByLabel("Name").fill("stand");
  await form.getByLabel("URL").fill(standIn.url);
  await form.getByLabel("Price per call (USD, optional)").fill("0.002");
  await form.getByRole("button", { name: "Add server" }).click();
  await expect(owner.page.getByRole("status").filter({ hasText: "Added the server stand with 3 tools." })).toBeVisible();

  const listed = card(owner.page, "stand");
  await expect(owner.page.getByRole("heading", { name: /stand\s*this workspace\s*up/ })).toBeVisible();
  await expect(listed).toContainText(standIn.url);
  await expect(listed).toContainText("Streamable HTTP");
  await expect(listed.getByTestId("server-price")).toHaveText("$0.002 per call");
  await expect(listed.getByTestId("mcp-tool")).toHaveCount(3);
  await expect(listed.getByTestId("mcp-tool").locator("code")).toHaveText(["stand__echo", "stand__add", "stand__fail"]);
  await expect(listed.locator('[data-tool-name="add"]')).toContainText("Adds two numbers.");
  await expect(listed.locator('[data-tool-name="add"]').getByTestId("tool-price")).toHaveText("$0.002 per call");
  await expect(listed).toContainText("stand__greet");
  await screenshot(owner.page, "tools", info);
});

test("the owner prices one tool in place, then clears it back to the server's price", async () => {
  const row = card(owner.page, "stand").locator('[data-tool-name="add"]');
  await row.getByLabel("Price per call of stand__add in USD").fill("0.5");
  await row.getByRole("button", { name: "Save the price of stand__add" }).click();
  await expect(row.getByTestId("tool-price")).toHaveText("$0.5 per call (its own)");
  const server = await db.mcpServer.findUniqueOrThrow({ where: { scope_name: { scope: owner.workspaceId, name: "stand" } } });
  expect(server.toolPrices).toEqual({ add: "0.5" });
  // A price that is not an amount is refused with the server's message.
  await row.getByLabel("Price per call of stand__add in USD").fill("cheap");
  await row.getByRole("button", { name: "Save the price of stand__add" }).click();
  await expect(row.getByRole("alert")).toContainText("price");
  await row.getByRole("button", { name: "Clear the price of stand__add" }).click();
  await expect(row.getByTestId("tool-price")).toHaveText("$0.002 per call");
  expect((await db.mcpServer.findUniqueOrThrow({ where: { id: server.id } })).toolPrices).toEqual({});
});

test("a server that does not answer is added as down, its error shown; a refresh keeps it so", async () => {
  const form = addForm(owner.page);
  await form.getByLabel("Name").fill("sleepy");
  await form.getByLabel("URL").fill("http://127.0.0.1:9/mcp");
  await form.getByLabel("Authentication").selectOption("header");
  await form.getByLabel("Headers").fill("X-Api-Key: s3cret-value");
  await form.getByRole("button", { name: "Add server" }).click();
  await expect(owner.page.getByRole("status").filter({ hasText: "Added the server sleepy, but it did not answer" })).toBeVisible();
  const sleepy = card(owner.page, "sleepy");
  await expect(owner.page.getByRole("heading", { name: /sleepy\s*this workspace\s*down/ })).toBeVisible();
  await expect(sleepy.getByTestId("server-error")).toContainText("not completed");
  await expect(sleepy).toContainText("headers (X-Api-Key)");
  await expect(sleepy).not.toContainText("s3cret-value");
  await expect(sleepy).toContainText("Its tools are not listed yet");
  await owner.page.getByRole("button", { name: "Refresh" }).click();
  await expect(owner.page.getByRole("button", { name: "Refresh" })).toBeEnabled();
  await expect(owner.page.getByRole("heading", { name: /sleepy\s*this workspace\s*down/ })).toBeVisible();
  await expect(owner.page.getByRole("heading", { name: /stand\s*this workspace\s*up/ })).toBeVisible();
});

test("the owner allows unregistered servers; a member sees the servers but no control that changes them", async ({ browser }) => {
  await owner.page.getByLabel("Allow unregistered servers").check();
  await expect.poll(async () => (await db.workspace.findUniqueOrThrow({ where: { id: owner.workspaceId } })).mcpAdhocServers).toBe(true);

  const other = await browser.newContext();
  try {
    const memberPage = await other.newPage();
    const watch = watchConsole(memberPage);
    const who = person("Toolmember");
    await signUp(memberPage, who);
    await expect(memberPage).toHaveURL(/\/workspaces\/new$/);
    const user = await db.user.findUniqueOrThrow({ where: { email: who.email } });
    await db.membership.create({ data: { workspaceId: owner.workspaceId, userId: user.id, role: "member" } });
    await visit(memberPage, toolsPage());
    await expect(card(memberPage, "stand").getByTestId("mcp-tool")).toHaveCount(3);
    await expect(memberPage.getByText("Your role (member) can see the servers and their tools but not change them")).toBeVisible();
    await expect(addForm(memberPage)).toHaveCount(0);
    await expect(memberPage.getByRole("button", { name: /^Remove the server/ })).toHaveCount(0);
    await expect(memberPage.getByRole("form", { name: /^Price of / })).toHaveCount(0);
    await expect(memberPage.getByLabel("Allow unregistered servers")).toBeDisabled();
    await expect(memberPage.getByLabel("Allow unregistered servers")).toBeChecked();
    watch.expectNone();
  } finally {
    await other.close();
  }
});

test("the owner removes the servers after confirming", async () => {
  for (const name of ["sleepy", "stand"]) {
    await owner.page.getByRole("button", { name: `Remove the server ${name}` }).click();
    await owner.page.getByRole("group", { name: `Confirm removing the server ${name}` }).getByRole("button", { name: "Yes, remove" }).click();
    await expect(card(owner.page, name)).toHaveCount(0);
  }
  await expect(owner.page.getByText("No MCP servers yet")).toBeVisible();
  expect(await db.mcpServer.count({ where: { scope: owner.workspaceId } })).toBe(0);
});
