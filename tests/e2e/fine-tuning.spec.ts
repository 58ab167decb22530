// Fine-tuning from the dashboard: before any job the page says how to start one with the `openai`
// SDK; a job created through the API trains on the built-in node and is followed on the page to
// "succeeded" with its trained tokens and tuned model; its page draws the training and validation
// loss, lists its events (newest first, as the API) and checkpoints, links the metrics file, and
// opens the tuned model in the playground; a paused job offers Resume and Cancel, is cancelled
// after a confirmation and shows it; a viewer sees the jobs but no action, and the server refuses
// theirs; the page's form starts a job with the base model, file, suffix and epochs chosen.
import { expect, test, type Browser } from "@playwright/test";
import { toFile } from "openai";
import { db } from "../../server/infra/db/client";
import { formatMoney } from "../../server/kernel/money";
import { person, screenshot, signUp, url, visit, watchConsole } from "./helpers";
import { ownerSuite } from "./owner";

test.describe.configure({ mode: "serial" });

const BASE = "local-chat-sim";
const suite = ownerSuite("Tuner", "Tuning Lab");
let jobId = "";
let tunedModel = "";
let slowJobId = "";

/** A chat-format JSONL file of `n` short examples: a code word per colour, learnable. */
function examples(n: number, offset = 0): string {
  return Array.from({ length: n }, (_, i) => {
    const k = i + offset;
    return JSON.stringify({
      messages: [
        { role: "system", content: "You answer with the code word." },
        { role: "user", content: `What is the code word for colour number ${k}?` },
        { role: "assistant", content: `The code word for colour ${k} is word${k % 7}.` },
      ],
    });
  }).join("\n");
}

const upload = async (text: string, filename: string) => suite.openai.files.create({ file: await toFile(Buffer.from(text), filename), purpose: "fine-tune" });

/** How far the page's first table reaches past its scrolling box, in px (0: every column shows at 1280 px). */
const tableOverflow = () => suite.page.locator("table").first().evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth);

const jobRow = (id: string) => suite.page.locator(`tr[data-testid="job-row"][data-job-id="${id}"]`);

test("before any job, the Fine-tuning page says how to start one with the openai SDK", async () => {
  const { page, workspaceId } = suite;
  await visit(page, url(`/w/${workspaceId}/fine-tuning`));
  await expect(page.getByRole("link", { name: "Fine-tuning", exact: true })).toHaveAttribute("aria-current", "page");
  await expect(page.getByText("No fine-tuning jobs yet.")).toBeVisible();
  const snippet = page.getByTestId("fine-tuning-snippet");
  await expect(snippet).toContainText('purpose: "fine-tune"');
  await expect(snippet).toContainText("openai.fineTuning.jobs.create");
  await expect(snippet).toContainText(`${new URL(url("/")).origin}/v1`);
});

test("a job created through the API is followed on the list to succeeded, with its trained tokens and tuned model", async ({}, info) => {
  test.setTimeout(240_000);
  const { page, openai, workspaceId } = suite;
  const training = await upload(examples(20), "colours.jsonl");
  const validation = await upload(examples(10, 100), "colours-valid.jsonl");
  const created = await openai.fineTuning.jobs.create({
    model: BASE,
    training_file: training.id,
    validation_file: validation.id,
    suffix: "colours",
    seed: 7,
    method: { type: "supervised", supervised: { hyperparameters: { n_epochs: 3 } } },
  });
  jobId = created.id;
  expect(jobId).toMatch(/^ftjob-/);

  await visit(page, url(`/w/${workspaceId}/fine-tuning`));
  const row = jobRow(jobId);
  await expect(row).toBeVisible({ timeout: 30_000 });
  await expect(row).toContainText(BASE);
  // The page polls: the status moves to succeeded without a reload.
  await expect(row).toHaveAttribute("data-status", "succeeded", { timeout: 200_000 });
  await expect(row.getByText("Succeeded", { exact: true })).toBeVisible();

  const done = await openai.fineTuning.jobs.retrieve(jobId);
  expect(done.status).toBe("succeeded");
  tunedModel = done.fine_tuned_model!;
  expect(tunedModel).toMatch(new RegExp(`^ft:${BASE}:tuning-lab:colours:`));
  await expect(row.getByTestId("trained-tokens")).toHaveText(done.trained_tokens!.toLocaleString("en-US"));
  await expect(row.getByTestId("model-name")).toHaveText(tunedModel);
  // The cost is the exact amount the ledger charged for the job.
  const charged = await db.fineTuningJob.findUniqueOrThrow({ where: { id: jobId }, select: { cost: true } });
  await expect(row.getByTestId("job-cost")).toHaveText(`$${formatMoney(charged.cost!)}`);
  expect(await tableOverflow()).toBe(0);
  await screenshot(page, "fine-tuning-list", info);
});

test("the job's page draws both losses, lists its events newest first and its checkpoints, and links the metrics file", async ({}, info) => {
  const { page, openai, workspaceId } = suite;
  await jobRow(jobId).getByRole("link", { name: jobId }).click();
  await expect(page).toHaveURL(url(`/w/${workspaceId}/fine-tuning/${jobId}`));
  await expect(page.getByRole("heading", { name: `Fine-tuning job ${jobId}` })).toBeVisible();
  await expect(page.getByTestId("job-status").first()).toHaveAttribute("data-status", "succeeded");
  await expect(page.getByTestId("hyperparameters")).toContainText("epochs 3");

  // One point per metrics event: as many as the steps the API reports, on both lines.
  const events = [];
  for await (const e of openai.fineTuning.jobs.listEvents(jobId, { limit: 100 })) events.push(e);
  const metrics = events.filter((e) => e.type === "metrics");
  expect(metrics.length).toBeGreaterThan(1);
  const chart = page.getByRole("img", { name: "Training and validation loss per step" });
  await expect(chart).toBeVisible();
  for (const line of ["loss-train", "loss-valid"]) {
    const d = await chart.getByTestId(line).getAttribute("d");
    expect(d!.match(/[ML]/g)!.length).toBe(new Set(metrics.map((e) => (e.data as { step: number }).step)).size);
  }
  const lastStep = Math.max(...metrics.map((e) => (e.data as { step: number }).step));
  await expect(page.getByTestId("last-train-loss")).toContainText(`at step ${lastStep}`);

  // Events: the newest first, as the API lists them; 20 a page, older ones behind "Load more".
  const shown = page.getByTestId("job-event");
  await expect(shown.first()).toContainText(events[0]!.message);
  await expect(shown).toHaveCount(Math.min(20, events.length));
  if (events.length > 20) {
    await page.getByRole("button", { name: "Load more" }).click();
    await expect(shown).toHaveCount(Math.min(40, events.length));
  }

  // Checkpoints: one row per checkpoint the API lists, each named as a model.
  const checkpoints = (await openai.fineTuning.jobs.checkpoints.list(jobId)).data;
  expect(checkpoints.length).toBeGreaterThan(0);
  const rows = page.getByTestId("checkpoint-row");
  await expect(rows).toHaveCount(checkpoints.length);
  for (const c of checkpoints) {
    await expect(page.locator(`tr[data-testid="checkpoint-row"][data-step="${c.step_number}"]`).getByTestId("model-name")).toHaveText(c.fine_tuned_model_checkpoint);
  }
  expect(await tableOverflow()).toBe(0);

  // The result file: the metrics CSV, downloaded with the session.
  const done = await openai.fineTuning.jobs.retrieve(jobId);
  expect(done.result_files.length).toBe(1);
  const link = page.getByRole("link", { name: `Download the result file of ${jobId}` });
  expect(await link.getAttribute("href")).toBe(`/api/files/${done.result_files[0]}/content?workspaceId=${workspaceId}&download=1`);
  const csv = await page.request.get(url((await link.getAttribute("href"))!));
  expect(csv.status()).toBe(200);
  const lines = (await csv.text()).trim().split("\n");
  expect(lines[0]).toMatch(/^step,train_loss,/);
  expect(lines.length - 1).toBe(lastStep);
  await screenshot(page, "fine-tuning-job", info);
});

test("the tuned model opens in the playground, selected", async () => {
  const { page, workspaceId } = suite;
  await page.getByRole("link", { name: `Open ${tunedModel} in the playground` }).first().click();
  await expect(page).toHaveURL(url(`/w/${workspaceId}/playground?model=${encodeURIComponent(tunedModel)}`));
  await expect(page.getByLabel("Model")).toHaveValue(tunedModel);
});

test("a paused job offers Resume and Cancel to the owner and nothing to a viewer; cancelled after a confirmation, it says so", async ({ browser }, info) => {
  test.setTimeout(180_000);
  const { page, openai, workspaceId } = suite;
  // Many examples and epochs, paused once training has begun: the job stays live while the page is looked at.
  const big = await upload(examples(400), "many-colours.jsonl");
  const job = await openai.fineTuning.jobs.create({ model: BASE, training_file: big.id, method: { type: "supervised", supervised: { hyperparameters: { n_epochs: 10 } } } });
  slowJobId = job.id;
  await expect
    .poll(
      async () => {
        const j = await openai.fineTuning.jobs.retrieve(slowJobId);
        return j.status === "running" && (j.trained_tokens ?? 0) > 0 ? "training" : j.status;
      },
      { timeout: 90_000, intervals: [100] },
    )
    .toBe("training");
  expect((await openai.fineTuning.jobs.pause(slowJobId)).status).toBe("paused");

  await visit(page, url(`/w/${workspaceId}/fine-tuning/${slowJobId}`));
  const status = page.getByTestId("job-status").first();
  await expect(status).toHaveAttribute("data-status", "paused");
  await expect(page.getByText("Paused", { exact: true }).first()).toBeVisible();
  await expect(page.getByRole("button", { name: `Resume ${slowJobId}` })).toBeVisible();
  await expect(page.getByRole("button", { name: `Pause ${slowJobId}` })).toHaveCount(0);
  await expect(page.getByRole("button", { name: `Cancel ${slowJobId}` })).toBeVisible();

  await viewerSeesNoActions(browser, slowJobId);

  await page.getByRole("button", { name: `Cancel ${slowJobId}` }).click();
  const confirm = page.getByRole("group", { name: `Confirm cancelling ${slowJobId}` });
  await expect(confirm).toContainText("The tokens trained so far are billed");
  await confirm.getByRole("button", { name: "Yes, cancel job" }).click();
  await expect(status).toHaveAttribute("data-status", "cancelled", { timeout: 30_000 });
  await expect(page.getByText("Cancelled", { exact: true }).first()).toBeVisible();
  await expect(page.getByRole("button", { name: /^(Cancel|Pause|Resume) ftjob-/ })).toHaveCount(0);
  const cancelled = await openai.fineTuning.jobs.retrieve(slowJobId);
  expect(cancelled.status).toBe("cancelled");
  expect(cancelled.trained_tokens).toBeGreaterThan(0);
  await expect(page.getByTestId("trained-tokens")).toHaveText(cancelled.trained_tokens!.toLocaleString("en-US"));
  await expect(page.getByTestId("job-cost")).toBeVisible();
  await screenshot(page, "fine-tuning-cancelled", info);

  await visit(page, url(`/w/${workspaceId}/fine-tuning`));
  await expect(jobRow(slowJobId)).toHaveAttribute("data-status", "cancelled");
});

/** A viewer of the workspace opens the list and the live job: both show, with no form to start one and no Cancel, Pause or Resume. */
async function viewerSeesNoActions(browser: Browser, id: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const viewer = await context.newPage();
    const watch = watchConsole(viewer);
    const who = person("Onlooker");
    await signUp(viewer, who);
    await expect(viewer).toHaveURL(/\/workspaces\/new$/);
    const user = await db.user.findUniqueOrThrow({ where: { email: who.email } });
    await db.membership.create({ data: { workspaceId: suite.workspaceId, userId: user.id, role: "viewer" } });

    await visit(viewer, url(`/w/${suite.workspaceId}/fine-tuning`));
    await expect(viewer.locator(`tr[data-testid="job-row"][data-job-id="${jobId}"]`)).toHaveAttribute("data-status", "succeeded");
    await expect(viewer.locator(`tr[data-testid="job-row"][data-job-id="${id}"]`)).toBeVisible();
    await expect(viewer.getByRole("button", { name: "Start fine-tuning" })).toHaveCount(0);

    await visit(viewer, url(`/w/${suite.workspaceId}/fine-tuning/${id}`));
    await expect(viewer.getByTestId("job-status").first()).toHaveAttribute("data-status", "paused");
    await expect(viewer.getByRole("button", { name: /^(Cancel|Pause|Resume)/ })).toHaveCount(0);
    // Hiding is a convenience: the server refuses the viewer's cancel too.
    const refused = await viewer.request.post(url("/api/trpc/fineTuning.cancel"), { headers: { "x-workspace-id": suite.workspaceId }, data: { fine_tuning_job_id: id } });
    expect(refused.status()).toBe(403);
    watch.expectNone();
  } finally {
    await context.close();
  }
}

test("an owner starts a job from the page's form: base model, training file, suffix and epochs, then lands on its page", async () => {
  const { page, openai, workspaceId } = suite;
  await visit(page, url(`/w/${workspaceId}/fine-tuning`));
  const form = page.getByRole("form", { name: "New fine-tuning job" });
  await expect(form.getByLabel("Base model")).toHaveValue(BASE);
  const training = (await openai.files.list({ purpose: "fine-tune" })).data.find((f) => f.filename === "colours.jsonl")!;
  await form.getByLabel("Training file").selectOption(training.id);
  await form.getByLabel("Suffix").fill("from-form");
  await form.getByLabel("Epochs").fill("2");
  await form.getByRole("button", { name: "Start fine-tuning" }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${workspaceId}/fine-tuning/ftjob-`));
  const id = decodeURIComponent(page.url().split("/").pop()!);
  const job = await openai.fineTuning.jobs.retrieve(id);
  expect(job).toMatchObject({ model: BASE, training_file: training.id, suffix: "from-form", hyperparameters: { n_epochs: 2 } });
  await expect(page.getByRole("heading", { name: `Fine-tuning job ${id}` })).toBeVisible();
  await expect(page.getByTestId("hyperparameters")).toContainText("epochs 2");
});
