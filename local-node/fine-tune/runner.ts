// Runs the fine-tuning jobs: validates their files, waits for a free slot, trains in a worker
// thread and records what it reports (events, checkpoints, the tuned model, the metrics file).
// Cancel, pause and resume act between two steps. After a restart, every job that was not
// finished or paused goes on from its last saved state, to the very same result.
import { Worker } from "node:worker_threads";
import { Slots } from "../slots";
import { readExamples, type Example } from "./examples";
import { metricsCsv } from "./result-file";
import { eventId, now, type FineTuneStore } from "./store";
import type { CheckpointObject, JobError, JobRecord } from "./types";
import { TERMINAL } from "./types";
import { CONTROL, type WorkerInput, type WorkerMessage } from "./worker";
import type { StepMetrics } from "./trainer";

export type RunnerOptions = {
  /** Pause between two training steps (ms). */
  stepDelayMs: number;
  /** Jobs training at once; the others wait queued. */
  concurrency: number;
  /** The context length of a base model. */
  contextLength: (model: string) => number;
};

type Active = { worker: Worker; control: Int32Array; exited: Promise<void>; startedAt: number; fromStep: number; lastSave: number };

const fmt = (x: number) => x.toFixed(2);

export class FineTuneRunner {
  private readonly active = new Map<string, Active>();
  /** Jobs with a run under way (validating, waiting for a slot or training). */
  private readonly pending = new Set<string>();
  /** Jobs to run again once their run under way ends (resumed while it was winding down). */
  private readonly again = new Set<string>();
  private closed = false;

  private readonly slots: Slots;

  constructor(
    private readonly store: FineTuneStore,
    private readonly opts: RunnerOptions,
  ) {
    this.slots = new Slots(opts.concurrency);
  }

  /** After a start: every job that was validating, queued or running goes on where it was saved. */
  recover(): void {
    for (const record of this.store.jobs.values()) {
      if (record.job.status !== "validating_files" && record.job.status !== "queued" && record.job.status !== "running") continue;
      const step = record.resume?.step ?? 0;
      // what was written after the saved state is written again, with the same ids
      record.events = record.events.filter((e) => e.step <= step);
      record.checkpoints = record.checkpoints.filter((c) => c.step_number <= step);
      record.job.trained_tokens = record.resume ? record.job.trained_tokens : null;
      void this.run(record.job.id);
    }
  }

  /** Runs a new job, after its creation has been answered (as `validating_files`). */
  submit(jobId: string): void {
    setImmediate(() => void this.run(jobId));
  }

  /** Stops every worker; the jobs stay as saved, to go on at the next start. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.active.values()].map((a) => a.worker.terminate()));
  }

  cancel(record: JobRecord): void {
    const active = this.active.get(record.job.id);
    if (active) {
      Atomics.store(active.control, 0, CONTROL.stop);
      Atomics.notify(active.control, 0);
      void active.worker.terminate();
    }
    this.store.addEvent(record, "cancelled", Number.MAX_SAFE_INTEGER, { level: "info", message: "The job has been cancelled", type: "message", data: null });
    this.finish(record, "cancelled");
  }

  pause(record: JobRecord): void {
    const active = this.active.get(record.job.id);
    if (active) {
      Atomics.store(active.control, 0, CONTROL.pause);
      Atomics.notify(active.control, 0);
    }
    record.job.status = "paused";
    record.job.estimated_finish = null;
    const step = this.lastStep(record);
    this.store.addEvent(record, `paused:${record.events.length}`, step, { level: "info", message: `Job paused at step ${step}`, type: "message", data: null });
    this.store.saveJob(record);
  }

  async resume(record: JobRecord): Promise<void> {
    await this.active.get(record.job.id)?.exited; // the paused worker hands its state over first
    record.job.status = "queued";
    this.store.addEvent(record, `resumed:${record.events.length}`, this.lastStep(record), { level: "info", message: "Job resumed", type: "message", data: null });
    this.store.saveJob(record);
    void this.run(record.job.id);
  }

  private lastStep(record: JobRecord): number {
    const metrics = record.events.filter((e) => e.type === "metrics");
    return metrics.length ? Math.max(...metrics.map((e) => e.step)) : (record.resume?.step ?? 0);
  }

  private finish(record: JobRecord, status: "succeeded" | "failed" | "cancelled", error: JobError | null = null): void {
    record.job.status = status;
    record.job.finished_at = now();
    record.job.estimated_finish = null;
    record.job.error = error;
    if (status === "failed") record.job.trained_tokens = record.job.trained_tokens ?? 0;
    this.store.saveJob(record);
  }

  private message(record: JobRecord, key: string, step: number, message: string, level: "info" | "warn" | "error" = "info"): void {
    this.store.addEvent(record, key, step, { level, message, type: "message", data: null });
  }

  /** The file's examples, or the job failed with the first rule the file breaks. */
  private readFile(record: JobRecord, which: "training" | "validation"): Example[] | null {
    const id = which === "training" ? record.job.training_file : record.job.validation_file!;
    const param = `${which}_file`;
    const fail = (message: string) => {
      this.message(record, `invalid:${which}`, 0, message, "error");
      this.finish(record, "failed", { code: `invalid_${which}_file`, message, param });
      return null;
    };
    if (!this.store.files.has(id)) return fail(`File ${id} not found`);
    const read = readExamples(this.store.fileData(id).toString("utf8"), this.opts.contextLength(record.job.model), which === "training" ? undefined : 1);
    return read.error ? fail(read.error.message) : read.examples;
  }

  private async run(jobId: string): Promise<void> {
    if (this.pending.has(jobId)) {
      this.again.add(jobId); // the run under way either goes on or ends; then it runs again
      return;
    }
    this.pending.add(jobId);
    try {
      await this.runOnce(jobId);
    } finally {
      this.pending.delete(jobId);
      if (this.again.delete(jobId)) void this.run(jobId);
    }
  }

  private async runOnce(jobId: string): Promise<void> {
    const record = this.store.jobs.get(jobId);
    if (!record || this.closed) return;
    const { job } = record;
    if (job.status === "validating_files") this.message(record, "validating", 0, `Validating training file: ${job.training_file}${job.validation_file ? ` and validation file: ${job.validation_file}` : ""}`);
    const training = this.readFile(record, "training");
    const validation = training && job.validation_file ? this.readFile(record, "validation") : [];
    if (!training || !validation) return;
    if (job.status === "validating_files") {
      this.message(record, "validated", 0, "Files validated, moving job to queued state");
      job.status = "queued";
      this.store.saveJob(record);
    }
    await this.slots.take();
    if (this.closed || job.status !== "queued" && job.status !== "running") return this.slots.release();
    try {
      await this.train(record, training, validation);
    } finally {
      this.active.delete(jobId);
      this.slots.release();
    }
  }

  private train(record: JobRecord, training: Example[], validation: Example[]): Promise<void> {
    const { job } = record;
    job.status = "running";
    this.message(record, "started", 0, "Fine-tuning job started");
    this.store.saveJob(record);
    const control = new Int32Array(new SharedArrayBuffer(4));
    const fineTune: WorkerInput = {
      input: { training, validation, hyper: job.hyperparameters, seed: job.seed },
      state: record.resume ? new Uint8Array(this.store.readState(job.id, record.resume.file)) : null,
      control: control.buffer as SharedArrayBuffer,
      stepDelayMs: this.opts.stepDelayMs,
    };
    const worker = new Worker(new URL("./worker-boot.mjs", import.meta.url), { workerData: { fineTune } });
    let ended = false;
    const exited = new Promise<void>((resolve) => {
      worker.on("message", (m: WorkerMessage) => {
        if (TERMINAL.has(job.status) && m.type !== "done") return;
        this.onMessage(record, active, m);
        if (m.type === "done" || m.type === "paused") ended = true;
      });
      worker.on("error", (err) => {
        if (ended || TERMINAL.has(job.status)) return;
        ended = true;
        this.message(record, "failed", Number.MAX_SAFE_INTEGER, `Training failed: ${err.message}`, "error");
        this.finish(record, "failed", { code: "training_failed", message: err.message, param: null });
      });
      worker.on("exit", () => resolve());
    });
    const active: Active = { worker, control, exited, startedAt: Date.now(), fromStep: record.resume?.step ?? 0, lastSave: 0 };
    this.active.set(job.id, active);
    return exited;
  }

  private onMessage(record: JobRecord, active: Active, m: WorkerMessage): void {
    const { job } = record;
    switch (m.type) {
      case "step":
        return this.onStep(record, active, m.metrics, m.trainedTokens);
      case "checkpoint":
        return this.onCheckpoint(record, m.step, m.state, m.metrics, m.fullValid);
      case "paused":
        record.resume = { file: this.store.writeState(record, `paused-${m.step}.bin`, Buffer.from(m.state)), step: m.step };
        this.store.saveJob(record);
        return;
      case "done": {
        if (TERMINAL.has(job.status)) return;
        const file = this.store.writeState(record, "model.bin", Buffer.from(m.state));
        this.store.addModel({ id: record.modelName, jobId: job.id, base: job.model, file, created: now(), step: null });
        const metrics = record.events.filter((e) => e.type === "metrics").map((e) => e.data as StepMetrics);
        const csv = this.store.addFile("step_metrics.csv", "fine-tune-results", Buffer.from(metricsCsv(metrics)));
        job.result_files = [csv.id];
        job.fine_tuned_model = record.modelName;
        job.trained_tokens = m.trainedTokens;
        this.message(record, "model", m.step, `New fine-tuned model created: ${record.modelName}`);
        this.message(record, "succeeded", m.step, "The job has successfully completed");
        this.finish(record, "succeeded");
        return;
      }
    }
  }

  private onStep(record: JobRecord, active: Active, metrics: StepMetrics, trainedTokens: number): void {
    const { job } = record;
    job.trained_tokens = trainedTokens;
    const valid = metrics.valid_loss === undefined ? "" : `, validation loss=${fmt(metrics.valid_loss)}`;
    this.store.addEvent(record, `metrics:${metrics.step}`, metrics.step, {
      level: "info",
      message: `Step ${metrics.step}/${metrics.total_steps}: training loss=${fmt(metrics.train_loss)}${valid}`,
      type: "metrics",
      data: { ...metrics },
    });
    const done = metrics.step - active.fromStep;
    const perStep = (Date.now() - active.startedAt) / Math.max(1, done);
    if (job.status === "running") job.estimated_finish = now() + Math.ceil(((metrics.total_steps - metrics.step) * perStep) / 1000);
    if (Date.now() - active.lastSave > 500) {
      active.lastSave = Date.now();
      this.store.saveJob(record);
    }
  }

  private onCheckpoint(record: JobRecord, step: number, state: Uint8Array, metrics: StepMetrics, fullValid: { loss: number; accuracy: number } | null): void {
    const { job } = record;
    const file = this.store.writeState(record, `ckpt-${step}.bin`, Buffer.from(state));
    const name = `${record.modelName}:ckpt-step-${step}`;
    const checkpoint: CheckpointObject = {
      id: eventId(job.id, `checkpoint:${step}`).replace("ftevent-", "ftckpt-"),
      object: "fine_tuning.job.checkpoint",
      created_at: now(),
      fine_tuned_model_checkpoint: name,
      step_number: step,
      metrics: {
        step,
        train_loss: metrics.train_loss,
        train_mean_token_accuracy: metrics.train_mean_token_accuracy,
        valid_loss: metrics.valid_loss ?? null,
        valid_mean_token_accuracy: metrics.valid_mean_token_accuracy ?? null,
        full_valid_loss: fullValid?.loss ?? null,
        full_valid_mean_token_accuracy: fullValid?.accuracy ?? null,
      },
      fine_tuning_job_id: job.id,
    };
    if (!record.checkpoints.some((c) => c.step_number === step)) record.checkpoints.push(checkpoint);
    this.store.addModel({ id: name, jobId: job.id, base: job.model, file, created: now(), step });
    record.resume = { file, step };
    this.message(record, `checkpoint:${step}`, step, `Checkpoint created at step ${step}`);
    this.store.saveJob(record);
  }
}
