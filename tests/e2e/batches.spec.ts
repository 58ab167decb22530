// Batches and files from the dashboard: an owner's batch, created through the API, reaches
// "completed" on the Batches page with its counts and exact cost; the page's output link answers
// the JSONL of its lines; a batch whose file is malformed shows the lines at fault; a running
// batch shows its progress and is cancelled after a confirmation in its row; the Files page
// lists the input and output files, filters them by purpose, and deletes one after a confirmation;
// a member of the billing role sees and downloads them but can neither delete nor cancel.
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import OpenAI, { toFile } from "openai";
import { db } from "../../server/infra/db/client";
import { money } from "../../server/kernel/money";
import { person, screenshot, signUp, url, visit, watchConsole } from "./helpers";
import { signedUpOwner } from "./owner";

test.describe.configure({ mode: "serial" });

const MODEL = "local-chat-sim";
let context: BrowserContext;
let page: Page;
let consoleWatch: ReturnType<typeof watchConsole>;
let workspaceId = "";
let openai: OpenAI;
let inputFileId = "";
let batchId = "";
let outputFileId = "";

const line = (customId: string, content: string) =>
  JSON.stringify({ custom_id: customId, method: "POST", url: "/v1/chat/completions", body: { model: MODEL, messages: [{ role: "user", content }] } });

const upload = async (text: string, filename: string) => openai.files.create({ file: await toFile(Buffer.from(text), filename), purpose: "batch" });

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  consoleWatch = watchConsole(page);
  ({ workspaceId, openai } = await signedUpOwner(page, "Batcher", "Batch workspace"));
});

test.afterEach(() => consoleWatch.expectNone());
test.afterAll(async () => {
  await context.close();
  await db.$disconnect();
});

const batchRow = (id: string) => page.locator(`tr[data-testid="batch-row"][data-batch-id="${id}"]`);
const fileRow = (id: string) => page.locator(`tr[data-testid="file-row"][data-file-id="${id}"]`);
/** How far the page's table reaches past its scrolling box, in px (0: every column shows at 1280 px). */
const tableOverflow = () => page.locator("table").first().evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth);

test("before any batch, the Batches page says how to create one", async () => {
  await visit(page, url(`/w/${workspaceId}/batches`));
  await expect(page.getByRole("link", { name: "Batches", exact: true })).toHaveAttribute("aria-current", "page");
  await expect(page.getByText("No batches yet.")).toBeVisible();
  await expect(page.getByText(/-F purpose=batch/)).toBeVisible();
  await expect(page.getByText(/\/v1\/batches -H/)).toBeVisible();
});

test("a batch created through the API reaches completed on the page, with its counts and exact cost", async ({}, info) => {
  const input = await upload(`${line("first-line", "hello")}\n${line("second-line", "world")}\n`, "requests.jsonl");
  inputFileId = input.id;
  const batch = await openai.batches.create({ input_file_id: input.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
  batchId = batch.id;

  // The page was open before the batch existed: it shows it after a visit, then follows it by polling.
  await visit(page, url(`/w/${workspaceId}/batches`));
  const row = batchRow(batchId);
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await expect(row.getByText("Completed", { exact: true })).toBeVisible();
  await expect(row.getByTestId("request-counts")).toHaveText("2 / 0 / 2");
  await expect(row.getByText("/v1/chat/completions")).toBeVisible();

  const done = await openai.batches.retrieve(batchId);
  expect(done.status).toBe("completed");
  const cost = (done as unknown as { cost: string }).cost;
  expect(money(cost).gt(0)).toBe(true);
  await expect(row.getByTestId("batch-cost")).toHaveText(`$${cost}`);
  // No progress bar nor Cancel once it has ended.
  await expect(row.getByRole("progressbar")).toHaveCount(0);
  await expect(row.getByRole("button", { name: `Cancel ${batchId}` })).toHaveCount(0);
  outputFileId = done.output_file_id!;
  expect(outputFileId).toBeTruthy();
  await screenshot(page, "batches-completed", info);
});

test("the output link answers the batch's JSONL, one line per custom_id, as an attachment", async () => {
  const link = batchRow(batchId).getByRole("link", { name: `Download the output file of ${batchId}` });
  const href = await link.getAttribute("href");
  expect(href).toBe(`/api/files/${outputFileId}/content?workspaceId=${workspaceId}&download=1`);
  const res = await page.request.get(url(href!));
  expect(res.status()).toBe(200);
  expect(res.headers()["content-disposition"]).toMatch(/^attachment/);
  const lines = (await res.text())
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { custom_id: string; response: { status_code: number } });
  expect(lines.map((l) => l.custom_id).sort()).toEqual(["first-line", "second-line"]);
  expect(lines.every((l) => l.response.status_code === 200)).toBe(true);

  // A byte range is passed on; another workspace's id (or none) is refused.
  const part = await page.request.get(url(href!), { headers: { range: "bytes=0-9" } });
  expect(part.status()).toBe(206);
  expect((await part.body()).length).toBe(10);
  const nobody = await page.request.get(url(`/api/files/${outputFileId}/content`));
  expect(nobody.status()).toBe(400);
});

test("a batch whose file is malformed fails and shows the line at fault", async ({}, info) => {
  const bad = await upload(`${line("ok-line", "fine")}\nthis is not json\n`, "broken.jsonl");
  const batch = await openai.batches.create({ input_file_id: bad.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
  await visit(page, url(`/w/${workspaceId}/batches`));
  await expect(batchRow(batch.id)).toHaveAttribute("data-status", "failed", { timeout: 60_000 });
  await expect(batchRow(batch.id).getByText("Failed", { exact: true })).toBeVisible();
  const errors = page.locator(`tr[data-testid="batch-errors"][data-batch-id="${batch.id}"]`);
  await expect(errors).toContainText("Line 2 is not valid JSON.");
  await expect(errors).toContainText("invalid_json_line");
  await screenshot(page, "batches-failed", info);
  await openai.files.delete(bad.id);
});

test("a running batch shows its progress, and its Cancel asks first, then stops it", async ({}, info) => {
  // One line the node refuses, then slow lines (2 s each, a few at a time): the batch runs for a while.
  const lines = [line("refused", "[sim:fail]"), ...Array.from({ length: 40 }, (_, i) => line(`slow-${i}`, `[sim:slow] line ${i}`))];
  const slow = await upload(lines.join("\n") + "\n", "slow.jsonl");
  const batch = await openai.batches.create({ input_file_id: slow.id, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: { run: "slow" } });
  await visit(page, url(`/w/${workspaceId}/batches`));
  const row = batchRow(batch.id);
  await expect(row).toHaveAttribute("data-status", "in_progress");
  await expect(row.getByText("In progress", { exact: true })).toBeVisible();
  await expect(row.getByText("run=slow")).toBeVisible();
  await expect(row.getByRole("progressbar", { name: `Progress of ${batch.id}` })).toBeVisible();
  // The page polls: the counts move without a reload.
  await expect(row.getByTestId("request-counts")).toHaveText(/^[1-9]\d* \/ 1 \/ 41$/);
  await screenshot(page, "batches-running", info);

  await row.getByRole("button", { name: `Cancel ${batch.id}` }).click();
  const confirm = row.getByRole("group", { name: `Confirm cancelling ${batch.id}` });
  await expect(confirm).toContainText("Lines already run are kept and billed.");
  await confirm.getByRole("button", { name: "Yes, cancel batch" }).click();
  await expect(row).toHaveAttribute("data-status", /^(cancelling|cancelled)$/);
  await expect(row).toHaveAttribute("data-status", "cancelled", { timeout: 30_000 });
  await expect(row.getByText("Cancelled", { exact: true })).toBeVisible();
  await expect(row.getByRole("button", { name: `Cancel ${batch.id}` })).toHaveCount(0);
  await expect(row.getByRole("progressbar")).toHaveCount(0);

  const ended = await openai.batches.retrieve(batch.id);
  expect(ended.status).toBe("cancelled");
  const { completed, failed, total } = ended.request_counts!;
  expect(total).toBe(41);
  expect(completed + failed).toBeLessThan(41);
  await expect(row.getByTestId("request-counts")).toHaveText(`${completed} / ${failed} / ${total}`);
  await expect(row.getByTestId("batch-cost")).toHaveText(`$${(ended as unknown as { cost: string }).cost}`);
  // The refused line is in the error file, linked from the row.
  expect(ended.error_file_id).toBeTruthy();
  const errorsHref = await row.getByRole("link", { name: `Download the errors file of ${batch.id}` }).getAttribute("href");
  const errorsFile = await page.request.get(url(errorsHref!));
  expect(errorsFile.status()).toBe(200);
  expect(await errorsFile.text()).toContain('"custom_id":"refused"');
  // With both file links in a row, every column still shows.
  expect(await tableOverflow()).toBe(0);
});

test("the Files page lists the input and output files, and filters them by purpose", async ({}, info) => {
  await visit(page, url(`/w/${workspaceId}/files`));
  await expect(page.getByRole("link", { name: "Files", exact: true })).toHaveAttribute("aria-current", "page");
  await expect(fileRow(inputFileId)).toContainText("requests.jsonl");
  await expect(fileRow(inputFileId)).toContainText("batch");
  await expect(fileRow(outputFileId)).toContainText("batch_output");
  await expect(fileRow(outputFileId)).toContainText(`${batchId}_output.jsonl`);
  await screenshot(page, "files-list", info);
  expect(await tableOverflow()).toBe(0);

  await page.getByLabel("Purpose").selectOption("batch_output");
  await expect(fileRow(inputFileId)).toHaveCount(0);
  await expect(fileRow(outputFileId)).toBeVisible();
  await page.getByLabel("Purpose").selectOption("");
  await expect(fileRow(inputFileId)).toBeVisible();

  const download = await page.request.get(url((await fileRow(inputFileId).getByRole("link", { name: /^Download/ }).getAttribute("href"))!));
  expect(download.status()).toBe(200);
  expect(await download.text()).toContain('"custom_id":"first-line"');
});

test("deleting a file from the Files page asks first, then removes it", async () => {
  await fileRow(inputFileId).getByRole("button", { name: `Delete requests.jsonl (${inputFileId})` }).click();
  const confirm = page.getByRole("group", { name: `Confirm deleting requests.jsonl (${inputFileId})` });
  await expect(confirm).toBeVisible();
  await confirm.getByRole("button", { name: "Yes, delete" }).click();
  await expect(fileRow(inputFileId)).toHaveCount(0);
  await expect(fileRow(outputFileId)).toBeVisible();
  await expect(openai.files.retrieve(inputFileId)).rejects.toMatchObject({ status: 404 });
});

test("a member of the billing role sees the batches and files and downloads them, but can neither delete nor cancel", async ({ browser }) => {
  const billingContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const billing = await billingContext.newPage();
    const watch = watchConsole(billing);
    const who = person("Biller");
    await signUp(billing, who);
    await expect(billing).toHaveURL(/\/workspaces\/new$/);
    const user = await db.user.findUniqueOrThrow({ where: { email: who.email } });
    await db.membership.create({ data: { workspaceId, userId: user.id, role: "billing" } });

    await visit(billing, url(`/w/${workspaceId}/files`));
    const output = billing.locator(`tr[data-testid="file-row"][data-file-id="${outputFileId}"]`);
    await expect(output).toBeVisible();
    const href = await output.getByRole("link", { name: /^Download/ }).getAttribute("href");
    const res = await billing.request.get(url(href!));
    expect(res.status()).toBe(200);
    expect(await res.text()).toContain('"custom_id":"first-line"');
    await expect(billing.getByRole("button", { name: /^Delete/ })).toHaveCount(0);

    await visit(billing, url(`/w/${workspaceId}/batches`));
    await expect(billing.locator(`tr[data-testid="batch-row"][data-batch-id="${batchId}"]`)).toHaveAttribute("data-status", "completed");
    await expect(billing.getByRole("button", { name: /^Cancel/ })).toHaveCount(0);
    watch.expectNone();
  } finally {
    await billingContext.close();
  }
});
