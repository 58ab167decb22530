// The built-in node's files and fine-tuning API with the official SDK: a job trains for real
// (events, checkpoints, metrics file, a tuned model and its checkpoints answering chat), files
// that break the rules fail by line, cancel and pause/resume act between steps, and a node
// killed with SIGKILL mid-training finishes the job, on restart, exactly as an uninterrupted run.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI, { toFile } from "openai";
import type { FineTuningJob } from "openai/resources/fine-tuning/jobs/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readExamples } from "../../local-node/fine-tune/examples";
import { startLocalNode, type RunningNode } from "../../local-node/listen";
import { freePort } from "../../server/infra/net/free-port";
import { colourExample, colourFile } from "../fine-tune-examples";
import { apiError } from "../local-node-fixture";

const TRAINING = colourFile(12);
const VALIDATION = colourFile(10, 300);
/** 12 examples: 10 epochs of 12 steps (batch 1). */
const TOTAL_STEPS = 120;
const TOKENS_PER_EPOCH = readExamples(TRAINING, 32768).tokensPerEpoch;
const STEP_DELAY_MS = 15;

let node: RunningNode;
let openai: OpenAI;

beforeAll(async () => {
  node = await startLocalNode({ fineTuneStepDelayMs: STEP_DELAY_MS });
  openai = new OpenAI({ apiKey: "x", baseURL: `${node.url}/v1`, maxRetries: 0 });
});
afterAll(() => node?.close());

async function upload(client: OpenAI, text: string, name = "train.jsonl") {
  return client.files.create({ file: await toFile(Buffer.from(text), name), purpose: "fine-tune" });
}

async function createJob(client: OpenAI, extra: Partial<OpenAI.FineTuning.JobCreateParams> = {}) {
  const training = await upload(client, TRAINING);
  const validation = await upload(client, VALIDATION, "valid.jsonl");
  return client.fineTuning.jobs.create({ model: "local-chat-sim", training_file: training.id, validation_file: validation.id, seed: 42, ...extra });
}

async function waitFor(client: OpenAI, id: string, done: (job: FineTuningJob) => boolean, timeoutMs = 25_000): Promise<FineTuningJob> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await client.fineTuning.jobs.retrieve(id);
    if (done(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} (${job.trained_tokens} tokens)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ended = (job: FineTuningJob) => ["succeeded", "failed", "cancelled"].includes(job.status);

async function resultCsv(client: OpenAI, job: FineTuningJob): Promise<string> {
  return (await client.files.content(job.result_files[0]!)).text();
}

const prompt = (i: number) => colourExample(i).messages.slice(0, 2) as OpenAI.ChatCompletionMessageParam[];
const answer = (i: number) => colourExample(i).messages[2]!.content;

describe("built-in node: fine-tuning", () => {
  let finished: FineTuningJob;

  it("trains a job: events, checkpoints, the metrics file and the tuned model answering", async () => {
    const file = await upload(openai, TRAINING);
    expect(file).toMatchObject({ object: "file", purpose: "fine-tune", filename: "train.jsonl", bytes: Buffer.byteLength(TRAINING) });
    expect(await openai.files.retrieve(file.id)).toEqual(file);
    const created = await createJob(openai, { suffix: "colours", metadata: { team: "a" }, method: { type: "supervised", supervised: { hyperparameters: { n_epochs: "auto", batch_size: "auto" } } } });
    expect(created).toMatchObject({ object: "fine_tuning.job", status: "validating_files", model: "local-chat-sim", fine_tuned_model: null, seed: 42, suffix: "colours", metadata: { team: "a" } });
    expect(created.hyperparameters).toEqual({ n_epochs: 10, batch_size: 1, learning_rate_multiplier: 1 });
    expect(created.method?.supervised?.hyperparameters).toEqual(created.hyperparameters);

    const running = await waitFor(openai, created.id, (j) => j.status === "running" && (j.trained_tokens ?? 0) > 0);
    expect(running.trained_tokens).toBeLessThan(TOKENS_PER_EPOCH * 10);
    expect(running.estimated_finish).toBeGreaterThan(0);

    finished = await waitFor(openai, created.id, ended);
    expect(finished.status).toBe("succeeded");
    expect(finished.trained_tokens).toBe(TOKENS_PER_EPOCH * 10);
    expect(finished.fine_tuned_model).toMatch(new RegExp(`^ft:local-chat-sim:local:colours:${created.id.slice(6, 14)}$`));
    expect(finished.finished_at).toBeGreaterThanOrEqual(finished.created_at);

    // events: newest first, OpenAI's messages, a metrics event per step, paged with `after`
    const events: OpenAI.FineTuning.FineTuningJobEvent[] = [];
    for await (const e of openai.fineTuning.jobs.listEvents(created.id, { limit: 50 })) events.push(e);
    const messages = events.filter((e) => e.type === "message").map((e) => e.message).reverse();
    expect(messages[0]).toMatch(/^Validating training file: file-/);
    expect(messages).toContain("Files validated, moving job to queued state");
    expect(messages).toContain("Fine-tuning job started");
    expect(messages).toContain("Checkpoint created at step 12");
    expect(messages.at(-2)).toBe(`New fine-tuned model created: ${finished.fine_tuned_model}`);
    expect(messages.at(-1)).toBe("The job has successfully completed");
    const metrics = events.filter((e) => e.type === "metrics");
    expect(metrics).toHaveLength(TOTAL_STEPS);
    expect(metrics[0]!.data).toMatchObject({ step: TOTAL_STEPS, total_steps: TOTAL_STEPS });
    expect(metrics[0]!.message).toMatch(new RegExp(`^Step ${TOTAL_STEPS}/${TOTAL_STEPS}: training loss=\\d+\\.\\d\\d, validation loss=\\d+\\.\\d\\d$`));
    const page = await openai.fineTuning.jobs.listEvents(created.id, { limit: 3, after: events[2]!.id });
    expect(page.data.map((e) => e.id)).toEqual(events.slice(3, 6).map((e) => e.id));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);

    // the loss really falls
    const losses = metrics.map((e) => (e.data as { train_loss: number }).train_loss).reverse();
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(losses.slice(-12))).toBeLessThan(mean(losses.slice(0, 12)) / 3);

    // a checkpoint per epoch, newest first, each a model
    const checkpoints = (await openai.fineTuning.jobs.checkpoints.list(created.id, { limit: 20 })).data;
    expect(checkpoints.map((c) => c.step_number)).toEqual([120, 108, 96, 84, 72, 60, 48, 36, 24, 12]);
    expect(checkpoints[9]).toMatchObject({ object: "fine_tuning.job.checkpoint", fine_tuning_job_id: created.id, fine_tuned_model_checkpoint: `${finished.fine_tuned_model}:ckpt-step-12` });
    expect(checkpoints[0]!.metrics.full_valid_loss).toBeGreaterThan(0);

    // the metrics file: one row per step, validation columns filled
    const csv = (await resultCsv(openai, finished)).trim().split("\n");
    expect(csv[0]).toBe("step,train_loss,train_accuracy,valid_loss,valid_mean_token_accuracy");
    expect(csv).toHaveLength(TOTAL_STEPS + 1);
    expect(csv[1]).toMatch(/^1,[\d.]+,[\d.]+,[\d.]+,[\d.]+$/);

    // listed by metadata
    const listed = await openai.fineTuning.jobs.list({ metadata: { team: "a" } } as never);
    expect(listed.data.map((j) => j.id)).toEqual([created.id]);
  });

  it("the tuned model answers its training prompts with their completions, and other prompts as the base model", async () => {
    const model = finished.fine_tuned_model!;
    for (const i of [0, 5, 11]) {
      const res = await openai.chat.completions.create({ model, temperature: 0, messages: prompt(i) });
      expect(res.choices[0]!.message.content).toBe(answer(i));
      expect(res.choices[0]!.finish_reason).toBe("stop");
      expect(res.model).toBe(model);
      expect(res.usage?.completion_tokens).toBeGreaterThan(5);
    }
    const stream = await openai.chat.completions.create({ model, temperature: 0, messages: prompt(3), stream: true, stream_options: { include_usage: true } });
    let text = "";
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(answer(3));
    expect(usage?.completion_tokens).toBeGreaterThan(5);

    const other = [{ role: "user" as const, content: "Write a haiku about the sea." }];
    const tuned = await openai.chat.completions.create({ model, temperature: 0, messages: other });
    const base = await openai.chat.completions.create({ model: "local-chat-sim", temperature: 0, messages: other });
    expect(tuned.choices[0]!.message.content).toBe(base.choices[0]!.message.content);

    const checkpoint = `${model}:ckpt-step-120`;
    const fromCheckpoint = await openai.chat.completions.create({ model: checkpoint, temperature: 0, messages: prompt(0) });
    expect(fromCheckpoint.choices[0]!.message.content).toBe(answer(0));
    expect(await openai.models.retrieve(checkpoint)).toMatchObject({ id: checkpoint, object: "model" });

    // the model card: not listed, retrievable, deletable; the base model says it can be tuned
    const list = await openai.models.list();
    expect(list.data.some((m) => m.id.startsWith("ft:"))).toBe(false);
    expect(list.data.find((m) => m.id === "local-chat-sim")).toMatchObject({ fine_tunable: true, pricing: { training_per_1m: "0", fine_tuned_input_per_1m: "0", fine_tuned_output_per_1m: "0" } });
    expect(list.data.find((m) => m.id === "local-embed-ngram")).toMatchObject({ fine_tunable: false });
    expect(await openai.models.retrieve(model)).toMatchObject({ id: model, object: "model", type: "chat", fine_tunable: false });
    expect(await openai.models.delete(model)).toEqual({ id: model, object: "model", deleted: true });
    expect((await apiError(openai.chat.completions.create({ model, messages: prompt(0) }))).status).toBe(404);
    expect((await apiError(openai.models.retrieve(model))).status).toBe(404);
    expect((await apiError(openai.models.delete("local-chat-sim"))).status).toBe(403);
  });

  it("refuses what cannot be trained, and fails a broken file naming its line", async () => {
    const training = await upload(openai, TRAINING);
    expect(await apiError(openai.fineTuning.jobs.create({ model: "no-such-model", training_file: training.id }))).toMatchObject({ status: 404, code: "model_not_found" });
    expect(await apiError(openai.fineTuning.jobs.create({ model: "local-embed-ngram", training_file: training.id }))).toMatchObject({ status: 400, code: "model_not_fine_tunable" });
    expect(await apiError(openai.fineTuning.jobs.create({ model: "local-chat-sim", training_file: "file-nope" }))).toMatchObject({ status: 400, param: "training_file" });
    expect(await apiError(openai.fineTuning.jobs.create({ model: "local-chat-sim", training_file: training.id, method: { type: "dpo" } }))).toMatchObject({ status: 400, code: "unsupported_method" });
    expect(await apiError(openai.fineTuning.jobs.create({ model: "local-chat-sim", training_file: training.id, hyperparameters: { n_epochs: 0 } }))).toMatchObject({ status: 400, param: "hyperparameters.n_epochs" });

    const lines = TRAINING.trim().split("\n");
    lines[3] = JSON.stringify({ messages: [{ role: "user", content: "hi" }, { content: "there" }] });
    const broken = await upload(openai, lines.join("\n"));
    const job = await openai.fineTuning.jobs.create({ model: "local-chat-sim", training_file: broken.id });
    const failed = await waitFor(openai, job.id, ended);
    expect(failed).toMatchObject({ status: "failed", fine_tuned_model: null, error: { code: "invalid_training_file", message: "Line 4: message 2 has no role", param: "training_file" } });

    const few = await upload(openai, colourFile(4));
    const tooFew = await waitFor(openai, (await openai.fineTuning.jobs.create({ model: "local-chat-sim", training_file: few.id })).id, ended);
    expect(tooFew.error).toMatchObject({ code: "invalid_training_file", param: "training_file" });
    expect(tooFew.error?.message).toMatch(/at least 10/);
  });

  it("cancels between two steps, keeping the tokens trained so far", async () => {
    const job = await createJob(openai);
    await waitFor(openai, job.id, (j) => (j.trained_tokens ?? 0) > 0);
    const cancelled = await openai.fineTuning.jobs.cancel(job.id);
    expect(cancelled.status).toBe("cancelled");
    await new Promise((r) => setTimeout(r, 200));
    const after = await openai.fineTuning.jobs.retrieve(job.id);
    expect(after.status).toBe("cancelled");
    expect(after.trained_tokens).toBe(cancelled.trained_tokens);
    expect(after.trained_tokens).toBeGreaterThan(0);
    expect(after.trained_tokens).toBeLessThan(TOKENS_PER_EPOCH * 10);
    expect(after.fine_tuned_model).toBeNull();
    expect((await apiError(openai.fineTuning.jobs.cancel(job.id))).status).toBe(400);
  });

  it("pauses and resumes to the same result as an uninterrupted run", async () => {
    const job = await createJob(openai);
    await waitFor(openai, job.id, (j) => (j.trained_tokens ?? 0) > TOKENS_PER_EPOCH);
    const paused = await openai.fineTuning.jobs.pause(job.id);
    expect(paused.status).toBe("paused");
    await new Promise((r) => setTimeout(r, 150));
    const still = await openai.fineTuning.jobs.retrieve(job.id);
    await new Promise((r) => setTimeout(r, 150));
    expect((await openai.fineTuning.jobs.retrieve(job.id)).trained_tokens).toBe(still.trained_tokens);
    expect(still.status).toBe("paused");
    const resumed = await openai.fineTuning.jobs.resume(job.id);
    expect(["queued", "running"]).toContain(resumed.status);
    const done = await waitFor(openai, job.id, ended);
    expect(done.status).toBe("succeeded");
    expect(done.trained_tokens).toBe(TOKENS_PER_EPOCH * 10);
    expect(await resultCsv(openai, done)).toBe(await resultCsv(openai, finished));
  });

  it("a node killed with SIGKILL mid-training finishes the job on restart, as an uninterrupted run", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ft-sigkill-"));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const client = new OpenAI({ apiKey: "x", baseURL: `${url}/v1`, maxRetries: 0 });
    let proc = await spawnNode(port, dataDir);
    try {
      const job = await createJob(client);
      // past the second checkpoint, in the middle of the third epoch
      await waitFor(client, job.id, (j) => (j.trained_tokens ?? 0) > TOKENS_PER_EPOCH * 2.5);
      proc.kill("SIGKILL");
      await new Promise((r) => proc.once("exit", r));
      proc = await spawnNode(port, dataDir);
      const done = await waitFor(client, job.id, ended, 40_000);
      expect(done.status).toBe("succeeded");
      expect(done.trained_tokens).toBe(TOKENS_PER_EPOCH * 10);
      expect(await resultCsv(client, done)).toBe(await resultCsv(openai, finished));
      const events = [];
      for await (const e of client.fineTuning.jobs.listEvents(job.id, { limit: 100 })) events.push(e);
      expect(events.filter((e) => e.type === "metrics")).toHaveLength(TOTAL_STEPS);
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
      expect((await client.fineTuning.jobs.checkpoints.list(job.id, { limit: 20 })).data).toHaveLength(10);
      const res = await client.chat.completions.create({ model: done.fine_tuned_model!, temperature: 0, messages: prompt(7) });
      expect(res.choices[0]!.message.content).toBe(answer(7));
    } finally {
      proc.kill("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 150_000);
});

async function spawnNode(port: number, dataDir: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ["--import", "tsx", "local-node/main.ts"], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, LOCAL_NODE_PORT: String(port), LOCAL_NODE_DATA_DIR: dataDir, LOCAL_NODE_FINE_TUNE_STEP_DELAY_MS: String(STEP_DELAY_MS), LOCAL_NODE_API_KEY: "" },
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return proc;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill("SIGKILL");
  throw new Error("the node did not start");
}
