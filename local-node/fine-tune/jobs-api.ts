// The fine-tuning jobs API of the node, in OpenAI's shapes: create (checked here, the file's
// rules checked by the runner), list, retrieve, cancel, pause, resume, events and checkpoints.
import type { IncomingMessage, ServerResponse } from "node:http";
import { MODELS } from "../catalog";
import { ApiError, readJson, send } from "../http";
import { resolveHyperparameters, type Hyperparameters } from "./examples";
import { page } from "./paging";
import type { FineTuneRunner } from "./runner";
import { now, randomId, type FineTuneStore } from "./store";
import { TERMINAL, type JobObject, type JobRecord } from "./types";

/** Who owns the node's tuned models, in their names (`ft:<base>:local:<suffix>:<id>`). */
export const OWNER = "local";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);
const invalid = (param: string, message: string) => new ApiError(400, "invalid_value", `Invalid value for '${param}': ${message}`, param);

const LIMITS: Record<keyof Hyperparameters, { min: number; max: number; integer: boolean }> = {
  n_epochs: { min: 1, max: 50, integer: true },
  batch_size: { min: 1, max: 256, integer: true },
  learning_rate_multiplier: { min: 0, max: 10, integer: false },
};

function hyperparameters(body: Json): Partial<Record<keyof Hyperparameters, unknown>> {
  const method = body.method;
  let given: unknown = body.hyperparameters;
  let prefix = "hyperparameters";
  if (method !== undefined) {
    if (!isObject(method) || typeof method.type !== "string") throw invalid("method", "expected an object with a type.");
    if (method.type !== "supervised") {
      throw new ApiError(400, "unsupported_method", `The fine-tuning method '${method.type}' is not supported by this node; only 'supervised' is.`, "method.type");
    }
    const supervised = method.supervised;
    if (supervised !== undefined && supervised !== null && !isObject(supervised)) throw invalid("method.supervised", "expected an object.");
    if (isObject(supervised) && supervised.hyperparameters !== undefined) {
      given = supervised.hyperparameters;
      prefix = "method.supervised.hyperparameters";
    }
  }
  if (given === undefined || given === null) return {};
  if (!isObject(given)) throw invalid(prefix, "expected an object.");
  const out: Partial<Record<keyof Hyperparameters, unknown>> = {};
  for (const key of Object.keys(LIMITS) as (keyof Hyperparameters)[]) {
    const v = given[key];
    if (v === undefined || v === "auto") continue;
    const { min, max, integer } = LIMITS[key];
    if (typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v > max || (integer ? v < min : v <= min)) {
      throw invalid(`${prefix}.${key}`, `expected "auto" or ${integer ? "an integer" : "a number"} ${integer ? `from ${min}` : `above ${min}`} to ${max}.`);
    }
    out[key] = v;
  }
  return out;
}

function metadata(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value) || Object.keys(value).length > 16) throw invalid("metadata", "expected an object of at most 16 string values.");
  for (const [k, v] of Object.entries(value)) {
    if (k.length > 64 || typeof v !== "string" || v.length > 512) throw invalid("metadata", "keys are at most 64 characters, values strings of at most 512.");
  }
  return value as Record<string, string>;
}

function fileParam(body: Json, store: FineTuneStore, param: "training_file" | "validation_file"): string | null {
  const id = body[param];
  if (id === undefined || id === null) {
    if (param === "training_file") throw new ApiError(400, "missing_required_parameter", "Missing required parameter: 'training_file'.", param);
    return null;
  }
  if (typeof id !== "string" || !store.files.has(id)) throw new ApiError(400, "invalid_file", `Invalid file '${String(id)}': no such file.`, param);
  return id;
}

export async function createJob(req: IncomingMessage, res: ServerResponse, store: FineTuneStore, runner: FineTuneRunner): Promise<void> {
  const body = await readJson(req);
  const model = body.model;
  if (typeof model !== "string" || !model) throw new ApiError(400, "missing_required_parameter", "Missing required parameter: 'model'.", "model");
  const card = MODELS.find((m) => m.id === model);
  if (!card && !store.models.has(model)) throw new ApiError(404, "model_not_found", `The model '${model}' does not exist or you do not have access to it.`, "model");
  if (card?.fine_tunable !== true) throw new ApiError(400, "model_not_fine_tunable", `The model '${model}' cannot be fine-tuned.`, "model");
  const training = fileParam(body, store, "training_file")!;
  const validation = fileParam(body, store, "validation_file");
  const suffix = body.suffix ?? null;
  if (suffix !== null && (typeof suffix !== "string" || !/^[A-Za-z0-9_-]{0,64}$/.test(suffix))) throw invalid("suffix", "at most 64 letters, digits, '-' or '_'.");
  const seed = body.seed ?? Math.floor(Math.random() * 2 ** 31);
  if (typeof seed !== "number" || !Number.isInteger(seed) || seed < 0 || seed > 2 ** 31 - 1) throw invalid("seed", "expected an integer from 0 to 2147483647.");
  const given = hyperparameters(body);
  const lines = store.fileData(training).toString("utf8").split(/\r?\n/).filter((l) => l.trim()).length;
  const hyper = resolveHyperparameters(given, lines);
  const id = randomId("ftjob-");
  const job: JobObject = {
    id,
    object: "fine_tuning.job",
    created_at: now(),
    finished_at: null,
    model,
    fine_tuned_model: null,
    organization_id: "org-local-node",
    status: "validating_files",
    training_file: training,
    validation_file: validation,
    result_files: [],
    trained_tokens: null,
    hyperparameters: hyper,
    method: { type: "supervised", supervised: { hyperparameters: hyper } },
    seed,
    estimated_finish: null,
    error: null,
    suffix: (suffix as string | null) || null,
    user_provided_suffix: (suffix as string | null) || null,
    metadata: metadata(body.metadata),
    integrations: [],
  };
  const record: JobRecord = { job, modelName: `ft:${model}:${OWNER}:${job.suffix ?? ""}:${id.slice(6, 14)}`, events: [], checkpoints: [], resume: null };
  store.saveJob(record);
  runner.submit(id);
  send(res, 200, job);
}

function found(store: FineTuneStore, id: string): JobRecord {
  const record = store.jobs.get(id);
  if (!record) throw new ApiError(404, "fine_tuning_job_not_found", `Fine-tuning job ${id} not found.`, "fine_tuning_job_id");
  return record;
}

export function listJobs(req: IncomingMessage, res: ServerResponse, store: FineTuneStore): void {
  const query = new URL(req.url ?? "/", "http://node").searchParams;
  const filters = [...query.entries()].flatMap(([k, v]) => {
    const m = /^metadata\[(.+)\]$/.exec(k);
    return m ? [[m[1]!, v] as const] : [];
  });
  const jobs = [...store.jobs.values()]
    .map((r) => r.job)
    .filter((j) => filters.every(([k, v]) => j.metadata?.[k] === v))
    .sort((a, b) => b.created_at - a.created_at);
  const { object, data, has_more } = page(jobs, query, 20);
  send(res, 200, { object, data, has_more });
}

export function getJob(res: ServerResponse, store: FineTuneStore, id: string): void {
  send(res, 200, found(store, id).job);
}

export function listEvents(req: IncomingMessage, res: ServerResponse, store: FineTuneStore, id: string): void {
  const query = new URL(req.url ?? "/", "http://node").searchParams;
  const events = found(store, id).events.map(({ step: _step, ...e }) => e).reverse();
  const { object, data, has_more } = page(events, query, 20);
  send(res, 200, { object, data, has_more });
}

export function listCheckpoints(req: IncomingMessage, res: ServerResponse, store: FineTuneStore, id: string): void {
  const query = new URL(req.url ?? "/", "http://node").searchParams;
  send(res, 200, page([...found(store, id).checkpoints].reverse(), query, 10));
}

type Action = "cancel" | "pause" | "resume";

export async function jobAction(res: ServerResponse, store: FineTuneStore, runner: FineTuneRunner, id: string, action: Action): Promise<void> {
  const record = found(store, id);
  const { status } = record.job;
  const refuse = () => {
    throw new ApiError(400, "invalid_job_status", `Job ${id} is ${status}; it cannot be ${action === "cancel" ? "cancelled" : action === "pause" ? "paused" : "resumed"}.`, null);
  };
  if (action === "cancel") {
    if (TERMINAL.has(status)) refuse();
    runner.cancel(record);
  } else if (action === "pause") {
    if (status !== "running" && status !== "queued") refuse();
    runner.pause(record);
  } else {
    if (status !== "paused") refuse();
    await runner.resume(record);
  }
  send(res, 200, record.job);
}
