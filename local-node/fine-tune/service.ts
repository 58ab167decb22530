// Fine-tuning on the node, put together: the store in the data dir (or a temporary one), the
// runner, the HTTP routes, and the tuned models the chat endpoint answers as.
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MODELS } from "../catalog";
import { ApiError, send } from "../http";
import { deleteFile, fileContent, getFile, listFiles, uploadFile } from "./files-api";
import { createJob, getJob, jobAction, listCheckpoints, listEvents, listJobs } from "./jobs-api";
import { deserialize, loadModel, type LoadedModel } from "./model";
import { FineTuneRunner } from "./runner";
import { FineTuneStore } from "./store";

export type FineTuningOptions = {
  /** Where files, jobs and models are kept; a temporary folder (removed on close) when absent. */
  dataDir?: string;
  stepDelayMs?: number;
  concurrency?: number;
};

export type Route = (req: IncomingMessage, res: ServerResponse, match: RegExpMatchArray) => void | Promise<void>;

export class FineTuning {
  readonly store: FineTuneStore;
  readonly runner: FineTuneRunner;
  private readonly temporary: boolean;
  private readonly loaded = new Map<string, LoadedModel>();

  constructor(options: FineTuningOptions = {}) {
    this.temporary = !options.dataDir;
    const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), "local-node-fine-tune-"));
    if (this.temporary) process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    this.store = new FineTuneStore(dir);
    this.runner = new FineTuneRunner(this.store, {
      stepDelayMs: options.stepDelayMs ?? 0,
      concurrency: options.concurrency ?? 2,
      contextLength: (model) => Number(MODELS.find((m) => m.id === model)?.context_length ?? 32768),
    });
    this.runner.recover();
  }

  /** The tuned model (or checkpoint) called `name`, loaded once. */
  model(name: string): LoadedModel | undefined {
    const entry = this.store.models.get(name);
    if (!entry) return undefined;
    let model = this.loaded.get(name);
    if (!model) {
      model = loadModel(deserialize(this.store.readState(entry.jobId, entry.file)));
      this.loaded.set(name, model);
    }
    return model;
  }

  /** The card of a tuned model: its base model's, renamed, not tunable itself. */
  card(name: string): Record<string, unknown> | undefined {
    const entry = this.store.models.get(name);
    const base = entry && MODELS.find((m) => m.id === entry.base);
    if (!entry || !base) return undefined;
    return { ...base, id: name, created: entry.created, owned_by: "local-node", display_name: `${String(base.display_name)} (fine-tuned)`, fine_tunable: false, base_model: entry.base, fine_tuning_job: entry.jobId, checkpoint_step: entry.step };
  }

  deleteModel(res: ServerResponse, name: string): void {
    if (!this.store.models.has(name)) {
      if (MODELS.some((m) => m.id === name)) throw new ApiError(403, "model_not_deletable", `The model '${name}' is a base model of this node and cannot be deleted.`, "model");
      throw new ApiError(404, "model_not_found", `The model '${name}' does not exist`, "model");
    }
    this.store.deleteModel(name);
    this.loaded.delete(name);
    send(res, 200, { id: name, object: "model", deleted: true });
  }

  routes(): [string, RegExp, Route][] {
    const { store, runner } = this;
    const id = (m: RegExpMatchArray) => decodeURIComponent(m[1] ?? "");
    return [
      ["POST", /^\/v1\/files$/, (req, res) => uploadFile(req, res, store)],
      ["GET", /^\/v1\/files$/, (req, res) => listFiles(req, res, store)],
      ["GET", /^\/v1\/files\/([^/]+)$/, (_req, res, m) => getFile(res, store, id(m))],
      ["DELETE", /^\/v1\/files\/([^/]+)$/, (_req, res, m) => deleteFile(res, store, id(m))],
      ["GET", /^\/v1\/files\/([^/]+)\/content$/, (_req, res, m) => fileContent(res, store, id(m))],
      ["POST", /^\/v1\/fine_tuning\/jobs$/, (req, res) => createJob(req, res, store, runner)],
      ["GET", /^\/v1\/fine_tuning\/jobs$/, (req, res) => listJobs(req, res, store)],
      ["GET", /^\/v1\/fine_tuning\/jobs\/([^/]+)$/, (_req, res, m) => getJob(res, store, id(m))],
      ["POST", /^\/v1\/fine_tuning\/jobs\/([^/]+)\/cancel$/, (_req, res, m) => jobAction(res, store, runner, id(m), "cancel")],
      ["POST", /^\/v1\/fine_tuning\/jobs\/([^/]+)\/pause$/, (_req, res, m) => jobAction(res, store, runner, id(m), "pause")],
      ["POST", /^\/v1\/fine_tuning\/jobs\/([^/]+)\/resume$/, (_req, res, m) => jobAction(res, store, runner, id(m), "resume")],
      ["GET", /^\/v1\/fine_tuning\/jobs\/([^/]+)\/events$/, (req, res, m) => listEvents(req, res, store, id(m))],
      ["GET", /^\/v1\/fine_tuning\/jobs\/([^/]+)\/checkpoints$/, (req, res, m) => listCheckpoints(req, res, store, id(m))],
    ];
  }

  /** Stops training (the jobs stay saved); a temporary folder is removed. */
  async close(): Promise<void> {
    await this.runner.close();
    if (this.temporary) rmSync(this.store.dir, { recursive: true, force: true });
  }
}
