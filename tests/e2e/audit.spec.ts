// The Audit page as an owner sees it: a key created and the workspace renamed on their pages show
// up as events (newest first, the key's name among the changes, never its secret), older events
// come with "Load more", the CSV export downloads them; a member is told the page is for owners
// and admins.
import { readFileSync } from "node:fs";
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { newAuditId } from "../../server/audit/record";
import { db } from "../../server/infra/db/client";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { person, screenshot, signUp, url, visit, watchConsole } from "./helpers";

test.describe.configure({ mode: "serial" });

let context: BrowserContext;
let page: Page;
let consoleWatch: ReturnType<typeof watchConsole>;
let workspaceId = "";
const ws = (section: string) => url(`/w/${workspaceId}/${section}`);

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  consoleWatch = watchConsole(page);
  const who = person("Auditor");
  await signUp(page, who);
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  const user = await db.user.findUniqueOrThrow({ where: { email: who.email } });
  const { workspace } = await createWorkspace({ name: "Audited workspace", credits: "5", ownerUserId: user.id });
  workspaceId = workspace.id;
  // Older events than a page holds, so that "Load more" has something to load.
  const base = Date.now() - 86_400_000;
  await db.auditEvent.createMany({
    data: Array.from({ length: 60 }, (_, i) => ({
      id: newAuditId(base + i * 1000),
      workspaceId,
      actorType: "cli",
      actorName: "ops",
      action: "plan.update",
      targetType: "plan",
      targetId: `plan_old${i}`,
      changes: { rpm: { from: i, to: i + 1 } },
      createdAt: new Date(base + i * 1000),
    })),
  });
});

test.afterEach(() => consoleWatch.expectNone());
test.afterAll(async () => {
  await context.close();
  await db.$disconnect();
});

test("a key created and a rename show on the Audit page, newest first, with Load more and a CSV export", async ({}, info) => {
  await visit(page, ws("keys"));
  await page.getByLabel("Name").fill("audited key");
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = (await page.getByTestId("new-key-secret").textContent())!.trim();
  await page.getByRole("button", { name: "Done" }).click();

  await visit(page, ws("settings"));
  await page.getByLabel("Workspace name").fill("Audited and renamed");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  // The rename is saved before the page is left (leaving at once could cancel its request).
  await expect(page.getByText("Saved.", { exact: true })).toBeVisible();
  // The notice stays once the workspace has been read again (the form is then remounted with the
  // new name, and Save disabled): it used to vanish with that read.
  await expect(page.getByRole("button", { name: "Save", exact: true })).toBeDisabled();
  await expect(page.getByText("Saved.", { exact: true })).toBeVisible();
  await expect(page.getByLabel("Workspace name")).toHaveValue("Audited and renamed");

  await visit(page, ws("audit"));
  await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Audit log" }).waitFor();
  const table = page.getByRole("table", { name: "Audit log" });
  const rows = table.locator("tbody tr");
  await expect(rows.first()).toContainText("workspace.rename");
  await expect(rows.first()).toContainText("Audited and renamed");
  await expect(rows.nth(1)).toContainText("key.create");
  await expect(rows.nth(1)).toContainText("audited key");
  await expect(page.getByText(secret)).toHaveCount(0);
  await expect(rows).toHaveCount(50);
  await screenshot(page, "audit", info);

  await page.getByRole("button", { name: "Load more" }).click();
  await expect(table.getByText("plan_old0")).toBeVisible();
  await expect(page.getByRole("button", { name: "Load more" })).toHaveCount(0);

  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const csv = readFileSync((await (await download).path())!, "utf8");
  const lines = csv.trim().split("\r\n");
  expect(lines[0]).toBe("time,actor_type,actor,action,target_type,target_id,changes");
  expect(lines[1]).toContain("workspace.rename");
  expect(csv).toContain("audited key");
  expect(csv).not.toContain(secret);
});

test("a member is told the audit log is for owners, admins and roles with audit.view", async ({ browser }) => {
  const other = await browser.newContext();
  const memberPage = await other.newPage();
  const who = person("Member");
  await signUp(memberPage, who);
  await expect(memberPage).toHaveURL(/\/workspaces\/new$/);
  const user = await db.user.findUniqueOrThrow({ where: { email: who.email } });
  await db.membership.create({ data: { workspaceId, userId: user.id, role: "member" } });
  await visit(memberPage, ws("audit"));
  await expect(memberPage.getByText("The audit log is for owners, admins and roles with audit.view. Your role (member) cannot see it.")).toBeVisible();
  await expect(memberPage.getByRole("table", { name: "Audit log" })).toHaveCount(0);
  await other.close();
});
