// Guardrails in the dashboard, as an owner uses them: a pii guardrail (input, redact) added through
// the form and listed as the workspace's; tried in its test box on an email address (redacted to
// [EMAIL]); attached to the workspace and to the workspace's key (named), then detached from the
// key; a deny guardrail whose pattern is not RE2 refused with the server's message naming
// patterns[0]; an http guardrail's signing secret shown once, and its failing check read as an
// error; a member reads and tries the guardrails without the editor or any control that changes
// them; the owner removes the guardrails, and their attachments go with them.
import { expect, test, type Page } from "@playwright/test";
import { db } from "../../server/infra/db/client";
import { person, screenshot, signUp, url, visit, watchConsole } from "./helpers";
import { ownerSuite } from "./owner";

test.describe.configure({ mode: "serial" });

const NAME = "no-emails";
const TEXT = "mail jane@example.com";
const SERVICE = "own-service";

const owner = ownerSuite("Guard", "Guarded workspace");

const guardrailsPage = () => url(`/w/${owner.workspaceId}/guardrails`);
const card = (p: Page, name: string) => p.locator(`[data-testid="guardrail"][data-guardrail-name="${name}"]`);
const addForm = (p: Page) => p.getByRole("form", { name: "Add a guardrail" });

async function tryText(p: Page, name: string, text: string) {
  const box = card(p, name).getByRole("form", { name: `Test ${name}` });
  await box.getByLabel("Text to test").fill(text);
  await box.getByRole("button", { name: `Test ${name} on the text` }).click();
  return box.getByTestId("guardrail-test-result");
}

test("an owner adds a pii guardrail that redacts the input, and sees it listed as the workspace's", async ({}, info) => {
  await visit(owner.page, guardrailsPage());
  await expect(owner.page.getByRole("heading", { level: 1, name: "Guardrails" })).toBeVisible();
  await expect(owner.page.getByText("No guardrails yet")).toBeVisible();
  await expect(owner.page.getByText("docs/GUARDRAILS.md")).toBeVisible();
  // The navigation lists the page right after Routes.
  const nav = owner.page.getByRole("navigation", { name: "Dashboard" }).getByRole("link");
  const labels = await nav.allTextContents();
  expect(labels.map((l) => l.trim()).indexOf("Guardrails")).toBe(labels.map((l) => l.trim()).indexOf("Routes") + 1);

  const form = addForm(owner.page);
  await form.getByLabel("Name").fill(NAME);
  await form.getByLabel("Type").selectOption("pii");
  await form.getByLabel("Stage").selectOption("input");
  await form.getByLabel("Action").selectOption("redact");
  await form.getByRole("button", { name: "Save guardrail" }).click();
  await expect(owner.page.getByRole("status").filter({ hasText: `Saved the guardrail ${NAME}.` })).toBeVisible();

  const listed = card(owner.page, NAME);
  await expect(owner.page.getByRole("heading", { name: new RegExp(`${NAME}\\s*this workspace\\s*pii`) })).toBeVisible();
  await expect(listed).toContainText("input (the call's input)");
  await expect(listed).toContainText("redact (redacts what it finds)");
  await expect(listed).toContainText("allow (a check that fails or times out lets the call through)");
  await expect(listed).toContainText("1000 ms");
  await expect(listed.getByTestId("guardrail-options")).toHaveText("every entity kind");
  await expect(listed.getByTestId("guardrail-attachments")).toContainText("Not attached");
  const row = await db.guardrail.findUniqueOrThrow({ where: { scope_name: { scope: owner.workspaceId, name: NAME } } });
  expect(row.definition).toMatchObject({ name: NAME, type: "pii", stage: "input", action: "redact" });
  await screenshot(owner.page, "guardrails", info);
});

test("the test box redacts an email address to [EMAIL], with the rule and the time", async ({}, info) => {
  const result = await tryText(owner.page, NAME, TEXT);
  await expect(result.getByTestId("guardrail-verdict")).toHaveText("redacted");
  await expect(result.getByTestId("guardrail-test-text")).toHaveText("mail [EMAIL]");
  await expect(result).toContainText("rule: email");
  await expect(result).toContainText(/\d+(\.\d+)? ms/);
  await screenshot(owner.page, "guardrails-test", info);
});

test("the owner attaches it to the workspace and to the workspace's key, then detaches it from the key", async ({}, info) => {
  const listed = card(owner.page, NAME);
  const attachments = listed.getByTestId("guardrail-attachments");
  // The workspace is the first choice.
  await expect(listed.getByLabel("Attach to")).toHaveValue("workspace");
  await listed.getByRole("button", { name: `Attach ${NAME}` }).click();
  await expect(attachments.getByRole("listitem")).toHaveText([/^workspace/]);

  const key = await db.apiKey.findFirstOrThrow({ where: { workspaceId: owner.workspaceId } });
  const keyLabel = `key ${key.name} (${key.prefix}…)`;
  await listed.getByLabel("Attach to").selectOption({ label: keyLabel });
  await listed.getByRole("button", { name: `Attach ${NAME}` }).click();
  await expect(attachments.getByRole("listitem")).toHaveText([/^workspace/, new RegExp(`^${keyLabel.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`)]);
  const row = await db.guardrail.findUniqueOrThrow({ where: { scope_name: { scope: owner.workspaceId, name: NAME } }, include: { attachments: true } });
  expect(row.attachments.map((a) => a.target).sort()).toEqual([`key:${key.id}`, "workspace"]);
  await screenshot(owner.page, "guardrails-attached", info);

  await listed.getByRole("button", { name: `Detach ${NAME} from ${keyLabel}` }).click();
  await expect(attachments.getByRole("listitem")).toHaveText([/^workspace/]);
  // Already attached to the workspace: only the key is left to attach to.
  await expect(listed.getByLabel("Attach to").locator("option")).toHaveText([keyLabel]);
  expect((await db.guardrailAttachment.findMany({ where: { guardrailId: row.id } })).map((a) => a.target)).toEqual(["workspace"]);
});

test("a deny guardrail whose pattern is not RE2 is refused with the server's message naming patterns[0], and not saved", async ({}, info) => {
  await visit(owner.page, guardrailsPage());
  const form = addForm(owner.page);
  await form.getByLabel("Name").fill("bad-deny");
  await form.getByLabel("Type").selectOption("deny");
  await form.getByLabel("Action").selectOption("block");
  await form.getByLabel("Patterns").fill("(a)\\1");
  await form.getByRole("button", { name: "Save guardrail" }).click();
  const refusal = owner.page.locator("section", { has: addForm(owner.page) }).getByRole("alert");
  await expect(refusal).toContainText("patterns[0] is not an RE2 expression");
  await screenshot(owner.page, "guardrails-refused", info);
  await visit(owner.page, guardrailsPage());
  await expect(card(owner.page, NAME)).toBeVisible();
  await expect(card(owner.page, "bad-deny")).toHaveCount(0);
  expect(await db.guardrail.count({ where: { name: "bad-deny" } })).toBe(0);
});

test("an http guardrail's signing secret is shown once, right after it is added; its check failing reads as an error", async ({}, info) => {
  await visit(owner.page, guardrailsPage());
  const form = addForm(owner.page);
  await form.getByLabel("Name").fill(SERVICE);
  await form.getByLabel("Type").selectOption("http");
  await form.getByLabel("Action").selectOption("flag");
  // Nothing listens on port 1 of the loopback address (which the test stack's outbound policy allows).
  await form.getByLabel("URL", { exact: true }).fill("http://127.0.0.1:1/check");
  await form.getByRole("button", { name: "Save guardrail" }).click();
  await expect(owner.page.getByTestId("guardrail-secret")).toHaveText(/^grsec_\w+$/);
  await screenshot(owner.page, "guardrails-secret", info);
  await owner.page.getByRole("button", { name: "Done" }).click();
  await expect(owner.page.getByTestId("guardrail-secret")).toHaveCount(0);
  await expect(card(owner.page, SERVICE).getByTestId("guardrail-options")).toHaveText("service 127.0.0.1:1 · adapter gateway");
  // Saved again (replaced): the secret is not shown again.
  await form.getByRole("button", { name: "Save guardrail" }).click();
  await expect(owner.page.getByRole("status").filter({ hasText: `Saved the guardrail ${SERVICE}.` })).toBeVisible();
  await expect(owner.page.getByTestId("guardrail-secret")).toHaveCount(0);

  const result = await tryText(owner.page, SERVICE, "hello");
  await expect(result.getByTestId("guardrail-verdict")).toHaveText("error");
  await expect(result).toContainText("The check failed:");
});

test("a member sees and tries the guardrails but neither the editor nor Remove, Edit, Attach or Detach", async ({ browser }) => {
  const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const memberPage = await other.newPage();
    const watch = watchConsole(memberPage);
    const who = person("Reader");
    await signUp(memberPage, who);
    await expect(memberPage).toHaveURL(/\/workspaces\/new$/);
    const user = await db.user.findUniqueOrThrow({ where: { email: who.email } });
    await db.membership.create({ data: { workspaceId: owner.workspaceId, userId: user.id, role: "member" } });
    await visit(memberPage, guardrailsPage());
    await expect(card(memberPage, NAME).getByTestId("guardrail-attachments")).toContainText("workspace");
    await expect(memberPage.getByText("Your role (member) can see and try the guardrails but not change them")).toBeVisible();
    await expect(addForm(memberPage)).toHaveCount(0);
    await expect(memberPage.getByRole("button", { name: /^(Save guardrail|Remove|Edit|Attach|Detach)/ })).toHaveCount(0);
    await expect(memberPage.getByLabel("Attach to")).toHaveCount(0);
    const result = await tryText(memberPage, NAME, TEXT);
    await expect(result.getByTestId("guardrail-verdict")).toHaveText("redacted");
    await expect(result.getByTestId("guardrail-test-text")).toHaveText("mail [EMAIL]");
    watch.expectNone();
  } finally {
    await other.close();
  }
});

test("the owner opens a guardrail in the editor, then removes both, with their attachments", async () => {
  await owner.page.getByRole("button", { name: `Edit the guardrail ${NAME}` }).click();
  const form = owner.page.getByRole("form", { name: `Edit ${NAME}` });
  await expect(form.getByLabel("Name")).toHaveValue(NAME);
  await expect(form.getByLabel("Type")).toHaveValue("pii");
  await expect(form.getByLabel("Action")).toHaveValue("redact");
  await form.getByRole("button", { name: "New guardrail instead" }).click();
  await expect(addForm(owner.page).getByLabel("Name")).toHaveValue("");

  const id = (await db.guardrail.findUniqueOrThrow({ where: { scope_name: { scope: owner.workspaceId, name: NAME } } })).id;
  for (const name of [SERVICE, NAME]) {
    await owner.page.getByRole("button", { name: `Remove the guardrail ${name}` }).click();
    await owner.page.getByRole("group", { name: `Confirm removing the guardrail ${name}` }).getByRole("button", { name: "Yes, remove" }).click();
    await expect(card(owner.page, name)).toHaveCount(0);
  }
  await expect(owner.page.getByText("No guardrails yet")).toBeVisible();
  expect(await db.guardrail.count({ where: { scope: owner.workspaceId } })).toBe(0);
  expect(await db.guardrailAttachment.count({ where: { guardrailId: id } })).toBe(0);
});
