// Roles in the dashboard: an owner makes a custom role in the members page and gives it to a
// member, who then holds exactly its permissions; a viewer sees the workspace read-only, and the
// server answers 403 to the mutations a viewer sends directly with their session.
import { expect, test, type Browser } from "@playwright/test";
import { db } from "../../server/infra/db/client";
import { person, screenshot, signUp, url, visit, watchConsole } from "./helpers";
import { ownerSuite } from "./owner";

test.describe.configure({ mode: "serial" });

const suite = ownerSuite("Owner", "Roles Inc");

/** A person who signs up in a browser context of their own and is made a member of the suite's workspace with `role`. */
async function joined(browser: Browser, name: string, role: "member" | "viewer") {
  const context = await browser.newContext();
  const page = await context.newPage();
  const consoleWatch = watchConsole(page);
  const who = person(name);
  await signUp(page, who);
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  const user = await db.user.findUniqueOrThrow({ where: { email: who.email } });
  await db.membership.create({ data: { workspaceId: suite.workspaceId, userId: user.id, role } });
  return { context, page, consoleWatch, who, user };
}

test("an owner creates a custom role with the editor and gives it to a member, who then creates keys and cannot manage plans", async ({ browser }, info) => {
  const { page, workspaceId } = suite;
  const member = await joined(browser, "Maker", "member");
  try {
    await visit(page, url(`/w/${workspaceId}/members`));
    await page.getByRole("button", { name: "New role" }).click();
    const form = page.getByRole("form", { name: "New role" });
    await form.getByLabel("Role name").fill("Key maker");
    await form.getByLabel("Description (optional)").fill("Creates API keys, nothing else");
    await form.getByRole("checkbox", { name: /keys\.create/ }).check();
    await form.getByRole("button", { name: "Create role" }).click();
    const rolesTable = page.getByRole("table", { name: "Custom roles" });
    await expect(rolesTable.getByText("Key maker", { exact: true })).toBeVisible();
    await expect(rolesTable.getByText("keys.create", { exact: true })).toBeVisible();
    const role = await db.customRole.findFirstOrThrow({ where: { workspaceId, name: "Key maker" } });
    expect(role.permissions).toEqual(["workspace.view", "keys.create"]);

    await page.getByLabel(`Role of ${member.who.name}`).selectOption({ label: "Key maker" });
    await expect.poll(() => db.membership.findFirst({ where: { workspaceId, userId: member.user.id }, select: { role: true, customRoleId: true } })).toEqual({ role: "viewer", customRoleId: role.id });
    await expect(page.getByLabel(`Role of ${member.who.name}`)).toHaveValue(`custom:${role.id}`);
    await screenshot(page, "roles-editor", info);
    const event = await db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: "member.role_change", targetId: member.user.id } });
    expect(event.changes).toEqual({ role: { from: "member", to: "viewer" }, custom_role: { from: null, to: "Key maker" } });

    // The member now holds the role's permissions: keys yes, plans no.
    await visit(member.page, url(`/w/${workspaceId}/keys`));
    await expect(member.page.getByText("Role: Key maker")).toBeVisible();
    await member.page.getByLabel("Name", { exact: true }).fill("made by Key maker");
    await member.page.getByRole("button", { name: "Create key" }).click();
    await expect(member.page.getByRole("table").getByText("made by Key maker")).toBeVisible();
    const plan = await member.page.request.post(url("/api/trpc/plans.create"), { headers: { "x-workspace-id": workspaceId }, data: { name: "Free" } });
    expect(plan.status()).toBe(403);

    // In use, the role cannot be deleted: the page says why.
    await page.getByRole("button", { name: "Delete role Key maker" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "hold the role" })).toBeVisible();
    member.consoleWatch.expectNone();
  } finally {
    await member.context.close();
  }
});

test("a viewer sees the workspace read-only, and the server refuses the mutations they send directly", async ({ browser }, info) => {
  const { workspaceId } = suite;
  const viewer = await joined(browser, "Watcher", "viewer");
  try {
    const page = viewer.page;
    await visit(page, url(`/w/${workspaceId}/keys`));
    await expect(page.getByText("Role: viewer")).toBeVisible();
    await expect(page.getByText("Your role (viewer) can see the keys but not create or revoke them.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Create key" })).toHaveCount(0);
    await visit(page, url(`/w/${workspaceId}/members`));
    await expect(page.getByRole("table", { name: "Workspace members" }).getByText(viewer.who.email)).toBeVisible();
    await expect(page.getByRole("button", { name: "Invite" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "New role" })).toHaveCount(0);
    await expect(page.getByRole("table", { name: "Workspace members" }).locator("select")).toHaveCount(0);
    await screenshot(page, "viewer-members", info);

    const call = (procedure: string, input: unknown) => page.request.post(url(`/api/trpc/${procedure}`), { headers: { "x-workspace-id": workspaceId }, data: input });
    for (const [procedure, input] of [
      ["keys.create", { name: "nope" }],
      ["workspaces.leave", {}],
      ["roles.create", { name: "Mine", permissions: ["keys.create"] }],
      ["chat.createCompletion", { model: "local-chat-sim", messages: [{ role: "user", content: "hi" }] }],
    ] as const) {
      const answer = await call(procedure, input);
      expect([procedure, answer.status()]).toEqual([procedure, 403]);
      expect((await answer.json()).error.data).toMatchObject({ code: "FORBIDDEN", gatewayCode: "permission_denied" });
    }
    viewer.consoleWatch.expectNone();
  } finally {
    await viewer.context.close();
  }
});
