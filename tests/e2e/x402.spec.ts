// The x402 revenue page: an operator sees the revenue recorded so far (written straight into the
// test database through the ledger's statement, as a settlement writes it; the paid request path
// is tested elsewhere) while x402 is off on this gateway; a member who is not an operator is
// offered no such page and is told so when opening it directly.
import { expect, test, type Browser } from "@playwright/test";
import { db } from "../../server/infra/db/client";
import { newId } from "../../server/kernel/ids";
import { X402_WORKSPACE_ID } from "../../server/kernel/x402-workspace";
import { applyMovements, type Movement } from "../../server/ledger/movements";
import { person, screenshot, signUp, url, visit, watchConsole, type Person } from "./helpers";
import { settlementMovements } from "../../server/admission/x402/settlement";

test.describe.configure({ mode: "serial" });

const tag = Math.random().toString(36).slice(2, 8);
const MODEL = `e2e-x402-model-${tag}`;
const PAYER = `0x${"7".repeat(34)}${tag.padEnd(6, "0")}`;
const TX = `0x${"cd".repeat(32)}`;
const FAILED_MODEL = `e2e-x402-failed-${tag}-with-a-rather-long-model-identifier`;
const FAILED_REASON = "invalid_exact_evm_payload_authorization_valid_before: the authorization expired before the facilitator could use it";

test.afterAll(async () => {
  await db.$disconnect();
});

function settled(cost: string): Movement[] {
  const usage = { eventId: newId("req"), modelId: MODEL, nodeId: null, endpoint: "/v1/chat/completions", inputTokens: 3 };
  return settlementMovements({ payer: PAYER, scheme: "upto" }, cost, TX, usage);
}

async function seed(): Promise<void> {
  await db.$executeRaw`INSERT INTO "Workspace" ("id", "name", "balance", "updatedAt") VALUES (${X402_WORKSPACE_ID}, 'x402 payments', 0, now()) ON CONFLICT ("id") DO NOTHING`;
  await applyMovements(db, [...settled("0.000123"), ...settled("0.000877")]);
  await db.x402Payment.create({
    data: {
      id: newId("x402pay"),
      network: "eip155:31337",
      asset: "0x0000000000000000000000000000000000000a5e",
      scheme: "upto",
      payer: PAYER,
      nonce: `e2e-${tag}`,
      maxAmount: "5000",
      settledAmount: "877",
      status: "settled",
      endpoint: "/v1/chat/completions",
      modelId: MODEL,
      txHash: TX,
      payload: {},
      requirements: {},
      settledAt: new Date(),
    },
  });
  // A payment that failed, with the longest things a row can hold: the table must not widen.
  await db.x402Payment.create({
    data: {
      id: newId("x402pay"),
      network: "eip155:31337",
      asset: "0x0000000000000000000000000000000000000a5e",
      scheme: "exact",
      payer: PAYER,
      nonce: `e2e-failed-${tag}`,
      maxAmount: "123456789012345678901234567890",
      status: "failed",
      errorReason: FAILED_REASON,
      endpoint: "/v1/audio/transcriptions",
      modelId: FAILED_MODEL,
      payload: {},
      requirements: {},
      settledAt: new Date(),
    },
  });
}

/** Signs up and creates a workspace; returns its id. */
async function newAccount(page: import("@playwright/test").Page, who: Person, workspace: string): Promise<string> {
  await signUp(page, who);
  await expect(page).toHaveURL(/\/workspaces\/new$/);
  await page.getByLabel("Workspace name").fill(workspace);
  await page.getByRole("button", { name: "Create workspace" }).click();
  await expect(page).toHaveURL(/\/w\/ws_\w+\/start$/);
  return new URL(page.url()).pathname.split("/")[2]!;
}

test("an operator sees x402 is off and the revenue recorded so far, per day, per model and per payment", async ({ browser }: { browser: Browser }, info) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const consoleWatch = watchConsole(page);
  try {
    const operator = person("Operator");
    const workspaceId = await newAccount(page, operator, "x402 Ops");
    // Whether or not this is the install's first user: make them an operator (read on every request).
    await db.user.update({ where: { email: operator.email }, data: { isOperator: true } });
    await seed();

    await visit(page, url(`/w/${workspaceId}/usage`));
    await page.getByRole("link", { name: "x402 revenue" }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${workspaceId}/x402$`));
    await expect(page.getByRole("heading", { name: "x402 revenue", level: 1 })).toBeVisible();
    await expect(page.getByText("x402 is off")).toBeVisible();
    await expect(page.getByText("X402_NETWORK=local npm start")).toBeVisible();

    const modelRow = page.getByTestId("x402-model-row").filter({ hasText: MODEL });
    await expect(modelRow).toContainText("$0.001");
    await expect(modelRow.getByRole("cell").nth(1)).toHaveText("2");
    await expect(page.getByTestId("x402-day-row").filter({ hasText: new Date().toISOString().slice(0, 10) })).toBeVisible();
    await expect(page.locator(".recharts-surface").first()).toBeVisible();

    const payment = page.getByTestId("x402-payment-row").filter({ hasText: MODEL });
    await expect(payment).toContainText("settled");
    await expect(payment).toContainText("upto");
    await expect(payment).toContainText("5000");
    await expect(payment).toContainText("877");
    await expect(payment.getByTitle(PAYER)).toHaveText(`${PAYER.slice(0, 6)}…${PAYER.slice(-4)}`);
    await expect(payment.getByTitle(TX)).toHaveText(`${TX.slice(0, 6)}…${TX.slice(-4)}`);

    const failed = page.getByTestId("x402-payment-row").filter({ hasText: FAILED_MODEL });
    await expect(failed).toContainText("failed");
    await expect(failed.getByTitle(FAILED_REASON)).toBeVisible();

    // At 1280 px no table of the page scrolls sideways.
    const overflows = await page.evaluate(() => [...document.querySelectorAll("table")].map((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth));
    for (const o of overflows) expect(o).toBeLessThanOrEqual(0);

    await page.getByLabel("Period").selectOption("7");
    await expect(page.getByTestId("x402-model-row").filter({ hasText: MODEL })).toContainText("$0.001");
    await screenshot(page, "x402-revenue", info);
    consoleWatch.expectNone();
  } finally {
    await context.close();
  }
});

test("a member who is not an operator is offered no x402 page and is told it is for operators", async ({ browser }: { browser: Browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const consoleWatch = watchConsole(page);
  try {
    const member = person("Member");
    const workspaceId = await newAccount(page, member, "x402 Member");
    await db.user.update({ where: { email: member.email }, data: { isOperator: false } });
    await visit(page, url(`/w/${workspaceId}/usage`));
    await expect(page.getByRole("link", { name: "Usage" })).toBeVisible();
    await expect(page.getByRole("link", { name: "x402 revenue" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Nodes" })).toHaveCount(0);

    await visit(page, url(`/w/${workspaceId}/x402`));
    await expect(page.getByRole("alert").filter({ hasText: "Only gateway operators" })).toBeVisible();
    await expect(page.getByText(MODEL)).toHaveCount(0);
    consoleWatch.expectNone();
  } finally {
    await context.close();
  }
});
