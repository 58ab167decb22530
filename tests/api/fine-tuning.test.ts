// Fine-tuning through the gateway with the official SDK, on the built-in node: a job created from
// an uploaded file (hyperparameters echoed resolved, seed echoed, the training's price held
// exactly), trained for real to `succeeded` (events and checkpoints newest first, the metrics
// file, the tuned model answering a training prompt with its completion, charged exactly the
// tokens trained), listed and filtered by metadata; bad requests named by their param; a file
// that breaks the rules failing the job by line without charge; a cancel charging only what was
// trained; and jobs no other workspace can reach.
import { randomBytes } from "node:crypto";
import Decimal from "decimal.js";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import OpenAI, { toFile } from "openai";
import type { FineTuningJob } from "openai/resources/fine-tuning/jobs/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../server/identity/keys/create-key";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { client, expectApiError, newWorkspace, until } from "../helpers";
import { balanceOf } from "../helpers-video";
import { colourExample, colourFile, type ChatExample } from "../fine-tune-examples";

const LOCAL = "local-chat-sim";
/** USD per 1M tokens trained, on this file's own base model. */
const PRICE = "2.5";
const enc = new Tiktoken(o200k);

/** Tokens of one epoch as the node and the gateway count them: 3 + the content's tokens per message. */
const epochTokens = (examples: ChatExample[]) => examples.reduce((sum, e) => sum + e.messages.reduce((s, m) => s + 3 + enc.encode(m.content, [], []).length, 0), 0);
const examples = (count: number, from = 0) => Array.from({ length: count }, (_, k) => colourExample(from + k));
const cost = (tokens: number) => new Decimal(PRICE).times(tokens).dividedBy(1_000_000);

/**
 * A catalog model of this file's own, tunable and priced for training, served by the node that
 * serves the built-in chat model (as that model): its price is nobody else's business.
 */
let BASE: string;

beforeAll(async () => {
  BASE = `ft-base-${randomBytes(4).toString("hex")}`;
  const { createdAt: _c, updatedAt: _u, ...row } = await db.model.findUniqueOrThrow({ where: { id: LOCAL } });
  await db.model.create({ data: { ...row, id: BASE, displayName: "Tunable test base", fineTunable: true, priceTrainingPer1m: PRICE } });
  const links = await db.nodeModel.findMany({ where: { modelId: LOCAL } });
  await db.nodeModel.createMany({ data: links.map((l) => ({ nodeId: l.nodeId, modelId: BASE, upstreamModel: l.upstreamModel })) });
  await notify(db, Channel.catalogChanged);
  const { openai } = await newWorkspace("1");
  const seen = await until(() => openai.models.retrieve(BASE).then(() => true, () => false), Boolean, 10_000);
  expect(seen.value, "the gateway's catalog has the test base model").toBe(true);
});

afterAll(async () => {
  await db.model.deleteMany({ where: { OR: [{ id: BASE }, { baseModelId: BASE }] } });
  await notify(db, Channel.catalogChanged);
});

async function upload(openai: OpenAI, text: string, purpose: "fine-tune" | "batch" = "fine-tune", name = "train.jsonl") {
  return openai.files.create({ file: await toFile(Buffer.from(text), name), purpose });
}

async function waitFor(openai: OpenAI, id: string, done: (job: FineTuningJob) => boolean, timeoutMs = 90_000): Promise<FineTuningJob> {
  const { value } = await until(() => openai.fineTuning.jobs.retrieve(id), done, timeoutMs);
  if (!done(value)) throw new Error(`job ${id} still ${value.status} (${value.trained_tokens} tokens) after ${timeoutMs} ms`);
  return value;
}

const ended = (job: FineTuningJob) => ["succeeded", "failed", "cancelled"].includes(job.status);
const prompt = (i: number) => colourExample(i).messages.slice(0, 2) as OpenAI.ChatCompletionMessageParam[];

describe("a fine-tuning job, from upload to the tuned model", () => {
  it("holds exactly, trains to succeeded, lists its events and checkpoints, answers as trained, and settles exactly", async () => {
    const { workspace, openai } = await newWorkspace("10", "Tuning Co.");
    const file = await upload(openai, colourFile(12));
    expect(file).toMatchObject({ object: "file", purpose: "fine-tune" });

    const created = await openai.fineTuning.jobs.create({ model: BASE, training_file: file.id, seed: 42, suffix: "colours", metadata: { team: "a" } });
    const tokens = epochTokens(examples(12));
    // 12 examples: "auto" is 10 epochs of batch 1 (clamp(ceil(1000 / 12), 3, 10), clamp(ceil(12 / 50), 1, 8)).
    expect(created).toMatchObject({
      object: "fine_tuning.job",
      status: "validating_files",
      model: BASE,
      fine_tuned_model: null,
      organization_id: workspace.id,
      training_file: file.id,
      validation_file: null,
      seed: 42,
      metadata: { team: "a" },
      hyperparameters: { n_epochs: 10, batch_size: 1, learning_rate_multiplier: 1 },
      method: { type: "supervised", supervised: { hyperparameters: { n_epochs: 10, batch_size: 1, learning_rate_multiplier: 1 } } },
      result_files: [],
      error: null,
    });
    expect(created.id).toMatch(/^ftjob-/);
    // The hold: one epoch's tokens x 10 epochs x the training price, exactly.
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(10).minus(cost(tokens * 10)).toFixed());

    const done = await waitFor(openai, created.id, ended);
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    expect(done.trained_tokens).toBe(tokens * 10);
    expect(done.fine_tuned_model).toBe(`ft:${BASE}:tuning-co:colours:${created.id.slice("ftjob-".length, "ftjob-".length + 8)}`);
    expect(done.finished_at).toBeGreaterThanOrEqual(done.created_at);
    expect(done.estimated_finish).toBeNull();
    // Settled: the hold back, the tokens trained charged once at the price, nothing else.
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(10).minus(cost(tokens * 10)).toFixed());
    const usage = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ id: created.id, endpoint: "/v1/fine_tuning/jobs", modelId: BASE, inputTokens: tokens * 10 });
    expect(new Decimal(usage[0]!.cost.toString()).toFixed()).toBe(cost(tokens * 10).toFixed());

    // Events newest first, paged with `after`; a metrics event per step.
    const events: OpenAI.FineTuning.FineTuningJobEvent[] = [];
    for await (const event of openai.fineTuning.jobs.listEvents(created.id, { limit: 50 })) events.push(event);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events[0]!.message).toBe("The job has successfully completed");
    expect(events.at(-1)!.message).toBe(`Created fine-tuning job: ${created.id}`);
    // A metrics event per step, newest first.
    const metrics = events.filter((e) => e.type === "metrics");
    expect(metrics.map((e) => (e.data as { step: number }).step)).toEqual(Array.from({ length: 120 }, (_, i) => 120 - i));
    expect(metrics[0]!.data).toMatchObject({ step: 120, train_loss: expect.any(Number), total_steps: 120 });
    const page = await openai.fineTuning.jobs.listEvents(created.id, { limit: 2 });
    expect(page.data.map((e) => e.id)).toEqual(events.slice(0, 2).map((e) => e.id));
    expect(page.has_more).toBe(true);
    const next = await openai.fineTuning.jobs.listEvents(created.id, { limit: 2, after: page.data[1]!.id });
    expect(next.data.map((e) => e.id)).toEqual(events.slice(2, 4).map((e) => e.id));

    // A checkpoint per epoch, newest first, each a model of its own.
    const checkpoints = await openai.fineTuning.jobs.checkpoints.list(created.id, { limit: 100 });
    expect(checkpoints.data.length).toBeGreaterThan(0);
    const numbers = checkpoints.data.map((c) => c.step_number);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    for (const c of checkpoints.data) {
      expect(c).toMatchObject({ object: "fine_tuning.job.checkpoint", fine_tuning_job_id: created.id, fine_tuned_model_checkpoint: `${done.fine_tuned_model}:ckpt-step-${c.step_number}` });
      expect(c.id).toMatch(/^ftckpt-/);
    }
    const older = await openai.fineTuning.jobs.checkpoints.list(created.id, { limit: 1, after: checkpoints.data[0]!.id });
    expect(older.data.map((c) => c.id)).toEqual(checkpoints.data.slice(1, 2).map((c) => c.id));

    // The metrics file, a gateway file of purpose fine-tune-results.
    expect(done.result_files).toHaveLength(1);
    const result = await openai.files.retrieve(done.result_files[0]!);
    expect(result.purpose).toBe("fine-tune-results");
    const csv = await (await openai.files.content(result.id)).text();
    expect(csv.split("\n")[0]).toBe("step,train_loss,train_accuracy,valid_loss,valid_mean_token_accuracy");

    // The tuned model answers a prompt of its training set with that example's completion.
    // (Each gateway process learns the model's node within its node registry's refresh, 5 s at most.)
    const ask = () => openai.chat.completions.create({ model: done.fine_tuned_model!, messages: prompt(3), temperature: 0, max_tokens: 20 });
    const { value: served } = await until(() => ask().catch((e: unknown) => e), (r) => !(r instanceof OpenAI.APIError && r.status === 503), 10_000);
    if (served instanceof Error) throw served;
    const answer = served as OpenAI.ChatCompletion;
    const expected = enc.decode(enc.encode(colourExample(3).messages[2]!.content, [], []).slice(0, 20));
    expect(answer.choices[0]!.message.content).toBe(expected);
  }, 150_000);
});

describe("creating a job", () => {
  it("echoes given hyperparameters (the older top-level form too), a random seed when none, and the suffix", async () => {
    const { openai } = await newWorkspace("10");
    const file = await upload(openai, colourFile(120));
    const job = await openai.fineTuning.jobs.create({ model: BASE, training_file: file.id, method: { type: "supervised", supervised: { hyperparameters: { n_epochs: 2, batch_size: "auto", learning_rate_multiplier: 0.5 } } } });
    // 120 examples: batch_size auto = ceil(120 / 50) = 3.
    expect(job.hyperparameters).toEqual({ n_epochs: 2, batch_size: 3, learning_rate_multiplier: 0.5 });
    expect(Number.isInteger(job.seed)).toBe(true);
    const legacy = await openai.fineTuning.jobs.create({ model: BASE, training_file: file.id, hyperparameters: { n_epochs: 3 }, suffix: "my-model_1" });
    expect(legacy.hyperparameters).toEqual({ n_epochs: 3, batch_size: 3, learning_rate_multiplier: 1 });
    expect(legacy).toMatchObject({ suffix: "my-model_1", user_provided_suffix: "my-model_1" });
    for (const id of [job.id, legacy.id]) await openai.fineTuning.jobs.cancel(id);
  });

  it("refuses bad requests, naming the param, before anything is held", async () => {
    const { workspace, openai } = await newWorkspace("10");
    const file = await upload(openai, colourFile(12));
    const batchFile = await upload(openai, `${JSON.stringify({ custom_id: "a", method: "POST", url: "/v1/embeddings", body: {} })}\n`, "batch");
    const create = (body: Record<string, unknown>) => openai.fineTuning.jobs.create({ model: BASE, training_file: file.id, ...body } as OpenAI.FineTuning.JobCreateParams);
    await expectApiError(create({ training_file: "file-nope" }), 404, "training_file", "file_not_found");
    await expectApiError(create({ validation_file: "file-nope" }), 404, "validation_file", "file_not_found");
    await expectApiError(create({ training_file: batchFile.id }), 400, "training_file", "invalid_file_purpose");
    await expectApiError(create({ method: { type: "dpo", dpo: {} } }), 400, "method.type", "unsupported_method");
    await expectApiError(create({ method: { type: "reinforcement" } }), 400, "method.type", "unsupported_method");
    await expectApiError(create({ suffix: "no spaces" }), 400, "suffix");
    await expectApiError(create({ suffix: "x".repeat(65) }), 400, "suffix");
    await expectApiError(create({ model: "local-embed-ngram" }), 400, "model", "model_not_fine_tunable");
    await expectApiError(create({ model: "no-such-model" }), 404, "model", "model_not_found");
    await expectApiError(create({ hyperparameters: { n_epochs: 0 } }), 400, "hyperparameters.n_epochs");
    await expectApiError(create({ hyperparameters: { n_epochs: 2 }, method: { type: "supervised", supervised: { hyperparameters: { n_epochs: 2 } } } }), 400, "hyperparameters");
    await expectApiError(create({ metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) }), 400, "metadata");
    expect((await balanceOf(workspace.id)).toFixed()).toBe("10");
    expect(await db.fineTuningJob.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("a balance short of the hold is 402, and nothing is created", async () => {
    const { workspace, openai } = await newWorkspace("0.0001");
    const file = await upload(openai, colourFile(120));
    await expectApiError(openai.fineTuning.jobs.create({ model: BASE, training_file: file.id }), 402, null, "insufficient_quota");
    expect(await db.fineTuningJob.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("a restricted key needs the fine_tuning group", async () => {
    const { workspace } = await newWorkspace("1");
    const { secret } = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "models only", permissions: ["models"] }));
    const err = await expectApiError(client(secret).fineTuning.jobs.list(), 403, null, "insufficient_permissions");
    expect(err.message).toContain("`fine_tuning`");
  });
});

describe("listing jobs", () => {
  it("newest first, paged with after and limit, filtered by metadata[k]=v", async () => {
    const { openai } = await newWorkspace("10");
    const file = await upload(openai, colourFile(12));
    const a = await openai.fineTuning.jobs.create({ model: BASE, training_file: file.id, metadata: { team: "a", env: "prod" } });
    const b = await openai.fineTuning.jobs.create({ model: BASE, training_file: file.id, metadata: { team: "b", env: "prod" } });
    const c = await openai.fineTuning.jobs.create({ model: BASE, training_file: file.id });
    for (const job of [a, b, c]) await openai.fineTuning.jobs.cancel(job.id).catch(() => undefined);

    const all = await openai.fineTuning.jobs.list();
    expect(all.data.map((j) => j.id)).toEqual([c.id, b.id, a.id]);
    expect(all.has_more).toBe(false);
    const first = await openai.fineTuning.jobs.list({ limit: 2 });
    expect(first.data.map((j) => j.id)).toEqual([c.id, b.id]);
    expect(first.has_more).toBe(true);
    const rest = await openai.fineTuning.jobs.list({ limit: 2, after: b.id });
    expect(rest.data.map((j) => j.id)).toEqual([a.id]);
    expect(rest.has_more).toBe(false);
    expect((await openai.fineTuning.jobs.list({ metadata: { team: "a" } })).data.map((j) => j.id)).toEqual([a.id]);
    expect((await openai.fineTuning.jobs.list({ metadata: { env: "prod" } })).data.map((j) => j.id)).toEqual([b.id, a.id]);
    expect((await openai.fineTuning.jobs.list({ metadata: { env: "prod", team: "b" } })).data.map((j) => j.id)).toEqual([b.id]);
    expect((await openai.fineTuning.jobs.list({ metadata: { team: "c" } })).data).toEqual([]);
    expect((await openai.fineTuning.jobs.retrieve(a.id)).metadata).toEqual({ team: "a", env: "prod" });
    await expectApiError(openai.fineTuning.jobs.list({ limit: 101 }), 400, "limit");
  });
});

describe("validation by line", () => {
  it("a file that breaks a rule fails the job naming the line, and costs nothing", async () => {
    const { workspace, openai } = await newWorkspace("10");
    const lines = colourFile(12).trim().split("\n");
    lines.splice(2, 0, JSON.stringify({ messages: [{ role: "user", content: "no answer" }] }));
    const file = await upload(openai, lines.join("\n"));
    const job = await openai.fineTuning.jobs.create({ model: BASE, training_file: file.id });
    const failed = await waitFor(openai, job.id, ended);
    expect(failed.status).toBe("failed");
    expect(failed.error).toEqual({ code: "invalid_training_file", message: "Line 3: has no assistant message", param: "training_file" });
    expect(failed.fine_tuned_model).toBeNull();
    expect((await balanceOf(workspace.id)).toFixed()).toBe("10");
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
    const events = await openai.fineTuning.jobs.listEvents(job.id);
    expect(events.data[0]).toMatchObject({ level: "error", message: expect.stringContaining("Line 3: has no assistant message") });

    // Too few examples, and a validation file that breaks a rule.
    const short = await openai.fineTuning.jobs.create({ model: BASE, training_file: (await upload(openai, colourFile(9))).id });
    expect((await waitFor(openai, short.id, ended)).error).toMatchObject({ code: "invalid_training_file", message: expect.stringContaining("at least 10") });
    const badValidation = await upload(openai, "{}\n", "fine-tune", "valid.jsonl");
    const good = await upload(openai, colourFile(12));
    const withValidation = await openai.fineTuning.jobs.create({ model: BASE, training_file: good.id, validation_file: badValidation.id });
    expect((await waitFor(openai, withValidation.id, ended)).error).toEqual({ code: "invalid_validation_file", message: "Line 1: has no messages", param: "validation_file" });
    expect((await balanceOf(workspace.id)).toFixed()).toBe("10");

    // An ended job cannot be cancelled, paused or resumed.
    await expectApiError(openai.fineTuning.jobs.cancel(job.id), 409, "fine_tuning_job_id", "job_not_cancellable");
    await expectApiError(openai.fineTuning.jobs.pause(job.id), 409, "fine_tuning_job_id", "job_not_pausable");
    await expectApiError(openai.fineTuning.jobs.resume(job.id), 409, "fine_tuning_job_id", "job_not_resumable");
  });
});

describe("cancel", () => {
  it("ends the job, charges exactly the tokens trained so far and gives the rest of the hold back", async () => {
    const { workspace, openai } = await newWorkspace("10");
    const file = await upload(openai, colourFile(100));
    const job = await openai.fineTuning.jobs.create({ model: BASE, training_file: file.id, method: { type: "supervised", supervised: { hyperparameters: { n_epochs: 10 } } } });
    const held = cost(epochTokens(examples(100)) * 10);
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(10).minus(held).toFixed());
    const cancelled = await openai.fineTuning.jobs.cancel(job.id);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.finished_at).not.toBeNull();
    const trained = cancelled.trained_tokens ?? 0;
    expect(trained).toBeLessThan(epochTokens(examples(100)) * 10);
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(10).minus(cost(trained)).toFixed());
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(trained ? 1 : 0);
    // Cancelled once: a second cancel is a 409, and the job stays as it ended.
    await expectApiError(openai.fineTuning.jobs.cancel(job.id), 409, "fine_tuning_job_id", "job_not_cancellable");
    await new Promise((r) => setTimeout(r, 1500));
    const later = await openai.fineTuning.jobs.retrieve(job.id);
    expect(later).toMatchObject({ status: "cancelled", trained_tokens: cancelled.trained_tokens });
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(10).minus(cost(trained)).toFixed());
    expect((await openai.fineTuning.jobs.listEvents(job.id)).data[0]!.message).toBe("Fine-tuning job cancelled");
  });
});

describe("isolation between workspaces", () => {
  it("another workspace's job is 404 everywhere, and its files cannot be named", async () => {
    const owner = await newWorkspace("10");
    const file = await upload(owner.openai, colourFile(12));
    const job = await owner.openai.fineTuning.jobs.create({ model: BASE, training_file: file.id });
    const other = (await newWorkspace("10")).openai;
    const notFound = (p: Promise<unknown>) => expectApiError(p, 404, "fine_tuning_job_id", "fine_tuning_job_not_found");
    await notFound(other.fineTuning.jobs.retrieve(job.id));
    await notFound(other.fineTuning.jobs.listEvents(job.id));
    await notFound(other.fineTuning.jobs.checkpoints.list(job.id));
    await notFound(other.fineTuning.jobs.cancel(job.id));
    await notFound(other.fineTuning.jobs.pause(job.id));
    await notFound(other.fineTuning.jobs.resume(job.id));
    expect((await other.fineTuning.jobs.list()).data).toEqual([]);
    await expectApiError(other.fineTuning.jobs.list({ after: job.id }), 400, "after");
    await expectApiError(other.fineTuning.jobs.create({ model: BASE, training_file: file.id }), 404, "training_file", "file_not_found");
    // Still the owner's, untouched.
    expect((await owner.openai.fineTuning.jobs.retrieve(job.id)).status).not.toBe("cancelled");
    await owner.openai.fineTuning.jobs.cancel(job.id).catch(() => undefined);
  });
});
