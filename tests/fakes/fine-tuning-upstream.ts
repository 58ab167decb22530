// A stand-in OpenAI-format node that serves fine-tuning, for tests of the gateway's pass-through:
// files (multipart upload, content, delete), fine_tuning/jobs with scripted progress (queued, then
// running a step every `stepMs` with a metrics event per step and a checkpoint per epoch, then
// succeeded with a fine_tuned_model and a metrics CSV as its result file), events and checkpoints
// listed newest first and paged as OpenAI's, cancel, pause and resume; `/v1/models` with a tuned
// model of its own (which the gateway must never import), and chat completions for its tuned
// models. It counts a file's tokens with the gateway's own formula (file-rules.ts), as a node must.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { readTrainingFile } from "../../server/fine-tuning/file-rules";
import { freePort } from "../../server/infra/net/free-port";
import { chatModelCard } from "./chat-model-card";

type Json = Record<string, unknown>;

export type FakeFile = { id: string; filename: string; purpose: string; bytes: number; content: Buffer; created_at: number };

export type FakeEvent = { id: string; object: "fine_tuning.job.event"; created_at: number; level: "info"; message: string; type: "message" | "metrics"; data: Json };

export type FakeCheckpoint = {
  id: string;
  object: "fine_tuning.job.checkpoint";
  created_at: number;
  fine_tuned_model_checkpoint: string;
  step_number: number;
  metrics: Json;
  fine_tuning_job_id: string;
};

export type FakeJob = {
  id: string;
  request: Json;
  status: "validating_files" | "queued" | "running" | "paused" | "succeeded" | "failed" | "cancelled";
  model: string;
  suffix: string | null;
  nEpochs: number;
  stepsPerEpoch: number;
  step: number;
  tokensPerEpoch: number;
  trainedTokens: number | null;
  fineTunedModel: string | null;
  resultFiles: string[];
  events: FakeEvent[];
  checkpoints: FakeCheckpoint[];
  created_at: number;
  finished_at: number | null;
  timer?: NodeJS.Timeout;
};

export type FakeFineTuningNode = {
  /** Base URL as the gateway registers it (ends in /v1). */
  url: string;
  /** The base model it tunes, and a tuned model of its own listed in /v1/models. */
  model: string;
  ownTunedModel: string;
  files: Map<string, FakeFile>;
  jobs: FakeJob[];
  /** Every POST /v1/fine_tuning/jobs body it received. */
  jobRequests: Json[];
  /** Every chat completion body it received. */
  chatBodies: Json[];
  /** Milliseconds between two training steps. */
  stepMs: number;
  /** Training steps per epoch. */
  stepsPerEpoch: number;
  /** When set, training stops before this step until it is set back to null. */
  holdAtStep: number | null;
  /** While true, every request is answered 503 (a node restarting). */
  down: boolean;
  /** While true, a job's training ends (it succeeds) just before a cancel of it is handled: the cancel comes too late. */
  endBeforeCancel: boolean;
  /** The answer of a tuned model. */
  tunedAnswer: string;
  close: () => Promise<void>;
};

const now = () => Math.floor(Date.now() / 1000);

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const refuse = (res: ServerResponse, status: number, code: string, message: string, param: string | null = null) =>
  send(res, status, { error: { message, type: "invalid_request_error", code, param } });

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** OpenAI's newest-first list, paged by `after` (items older than that id) and `limit`. */
function listPage<T extends { id: string }>(newestFirst: T[], query: URLSearchParams): Json {
  const after = query.get("after");
  const limit = Math.max(1, Math.min(100, Number(query.get("limit") ?? 20)));
  const start = after ? newestFirst.findIndex((x) => x.id === after) + 1 : 0;
  const data = newestFirst.slice(start, start + limit);
  return { object: "list", data, has_more: start + limit < newestFirst.length, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

export async function startFakeFineTuningNode(model: string): Promise<FakeFineTuningNode> {
  // The tokenizer loads on first use (seconds on a busy machine): loaded now, not in a job's create.
  await readTrainingFile("", 1);
  let seq = 0;
  const nextId = (prefix: string) => `${prefix}-fake${String(++seq).padStart(6, "0")}`;
  const fake: FakeFineTuningNode = {
    url: "",
    model,
    ownTunedModel: `ft:${model}:its-own-org::own00001`,
    files: new Map(),
    jobs: [],
    jobRequests: [],
    chatBodies: [],
    stepMs: 60,
    stepsPerEpoch: 3,
    holdAtStep: null,
    down: false,
    endBeforeCancel: false,
    tunedAnswer: "tuned answer from the stand-in",
    close: async () => undefined,
  };

  const event = (job: FakeJob, message: string, type: "message" | "metrics" = "message", data: Json = {}) =>
    job.events.push({ id: nextId("ftevent"), object: "fine_tuning.job.event", created_at: now(), level: "info", message, type, data });

  const totalSteps = (job: FakeJob) => job.stepsPerEpoch * job.nEpochs;
  const loss = (step: number) => Number((2 / (1 + step)).toFixed(4));

  function resultCsv(job: FakeJob): string {
    const rows = ["step,train_loss,train_accuracy,valid_loss,valid_mean_token_accuracy"];
    for (let s = 1; s <= totalSteps(job); s++) rows.push(`${s},${loss(s)},${(s / totalSteps(job)).toFixed(4)},,`);
    return rows.join("\n") + "\n";
  }

  function advance(job: FakeJob): void {
    if (job.status === "validating_files") {
      job.status = "queued";
      event(job, "Files validated, moving job to queued state");
      return;
    }
    if (job.status === "queued") {
      job.status = "running";
      job.trainedTokens = 0;
      event(job, "Fine-tuning job started");
      return;
    }
    if (job.status !== "running") return;
    if (fake.holdAtStep !== null && job.step + 1 >= fake.holdAtStep) return;
    job.step += 1;
    const total = totalSteps(job);
    job.trainedTokens = Math.round((job.tokensPerEpoch * job.nEpochs * job.step) / total);
    event(job, `Step ${job.step}/${total}: training loss=${loss(job.step)}`, "metrics", { step: job.step, total_steps: total, train_loss: loss(job.step), train_mean_token_accuracy: job.step / total });
    const name = `ft:${job.model}:fake-org:${job.suffix ?? ""}:${job.id.slice(-8)}`;
    if (job.step % job.stepsPerEpoch === 0) {
      const ckpt = `${name}:ckpt-step-${job.step}`;
      job.checkpoints.push({
        id: nextId("ftckpt"),
        object: "fine_tuning.job.checkpoint",
        created_at: now(),
        fine_tuned_model_checkpoint: ckpt,
        step_number: job.step,
        metrics: { step: job.step, train_loss: loss(job.step), train_mean_token_accuracy: job.step / total, valid_loss: null, valid_mean_token_accuracy: null, full_valid_loss: null, full_valid_mean_token_accuracy: null },
        fine_tuning_job_id: job.id,
      });
      event(job, `Checkpoint created at step ${job.step}`);
    }
    if (job.step === total) {
      const csv = Buffer.from(resultCsv(job));
      const file: FakeFile = { id: nextId("file"), filename: "step_metrics.csv", purpose: "fine-tune-results", bytes: csv.length, content: csv, created_at: now() };
      fake.files.set(file.id, file);
      job.resultFiles = [file.id];
      job.trainedTokens = job.tokensPerEpoch * job.nEpochs;
      job.fineTunedModel = name;
      job.status = "succeeded";
      job.finished_at = now();
      event(job, `New fine-tuned model created: ${name}`);
      event(job, "The job has successfully completed");
      clearInterval(job.timer);
    }
  }

  const jobObject = (job: FakeJob): Json => ({
    id: job.id,
    object: "fine_tuning.job",
    created_at: job.created_at,
    finished_at: job.finished_at,
    model: job.model,
    fine_tuned_model: job.fineTunedModel,
    organization_id: "org-fake",
    status: job.status,
    training_file: job.request.training_file,
    validation_file: job.request.validation_file ?? null,
    result_files: job.resultFiles,
    trained_tokens: job.trainedTokens,
    hyperparameters: { n_epochs: job.nEpochs, batch_size: 1, learning_rate_multiplier: 1 },
    method: job.request.method ?? null,
    seed: job.request.seed ?? 0,
    estimated_finish: job.status === "running" ? now() + Math.ceil(((totalSteps(job) - job.step) * fake.stepMs) / 1000) : null,
    error: job.status === "failed" ? { code: "training_failed", message: "failed", param: null } : null,
    suffix: job.suffix,
    metadata: job.request.metadata ?? null,
    user_provided_suffix: job.suffix,
  });

  async function createJob(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = JSON.parse((await bodyOf(req)).toString()) as Json;
    fake.jobRequests.push(body);
    if (body.model !== model) return refuse(res, 404, "model_not_found", `The model '${String(body.model)}' does not exist`, "model");
    const file = fake.files.get(String(body.training_file));
    if (!file) return refuse(res, 400, "invalid_training_file", `File ${String(body.training_file)} not found`, "training_file");
    const report = await readTrainingFile(file.content.toString("utf8"), 1_000_000);
    const hp = ((body.method as Json | undefined)?.supervised as Json | undefined)?.hyperparameters as Json | undefined;
    const job: FakeJob = {
      id: nextId("ftjob"),
      request: body,
      status: "validating_files",
      model,
      suffix: typeof body.suffix === "string" ? body.suffix : null,
      nEpochs: typeof hp?.n_epochs === "number" ? hp.n_epochs : 2,
      stepsPerEpoch: fake.stepsPerEpoch,
      step: 0,
      tokensPerEpoch: report.tokensPerEpoch,
      trainedTokens: null,
      fineTunedModel: null,
      resultFiles: [],
      events: [],
      checkpoints: [],
      created_at: now(),
      finished_at: null,
    };
    event(job, `Created fine-tuning job: ${job.id}`);
    event(job, `Validating training file: ${file.id}`);
    fake.jobs.push(job);
    job.timer = setInterval(() => advance(job), fake.stepMs);
    send(res, 200, jobObject(job));
  }

  async function uploadFile(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await new Response(new Uint8Array(await bodyOf(req)), { headers: { "content-type": String(req.headers["content-type"]) } }).formData();
    const blob = form.get("file") as File | null;
    if (!blob) return refuse(res, 400, "missing_file", "No file", "file");
    const content = Buffer.from(await blob.arrayBuffer());
    const file: FakeFile = { id: nextId("file"), filename: blob.name, purpose: String(form.get("purpose")), bytes: content.length, content, created_at: now() };
    fake.files.set(file.id, file);
    send(res, 200, { id: file.id, object: "file", bytes: file.bytes, created_at: file.created_at, filename: file.filename, purpose: file.purpose });
  }

  function chat(body: Json, res: ServerResponse): void {
    fake.chatBodies.push(body);
    const asked = String(body.model);
    const tuned = fake.jobs.some((j) => j.fineTunedModel && (asked === j.fineTunedModel || asked.startsWith(`${j.fineTunedModel}:ckpt-step-`)));
    if (asked !== model && !tuned) return refuse(res, 404, "model_not_found", `The model '${asked}' does not exist`, "model");
    const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } };
    const content = tuned ? fake.tunedAnswer : "base answer";
    if (body.stream) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const base = { id: "chatcmpl-fake", created: now(), model: asked, object: "chat.completion.chunk" };
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: "assistant", content }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
      return void res.end("data: [DONE]\n\n");
    }
    send(res, 200, { id: "chatcmpl-fake", object: "chat.completion", created: now(), model: asked, choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }], usage });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname;
    const method = req.method ?? "GET";
    if (path === "/v1/models" && method === "GET") {
      // Full model cards (so the gateway's import would take them): the base model tunable, and a tuned model of the node's own account.
      const base = { ...chatModelCard(model), object: "model", fine_tunable: true };
      const own = { ...chatModelCard(fake.ownTunedModel), object: "model" };
      return send(res, 200, { object: "list", data: [base, own] });
    }
    if (path === "/v1/chat/completions" && method === "POST") return chat(JSON.parse((await bodyOf(req)).toString()) as Json, res);
    if (path === "/v1/files" && method === "POST") return uploadFile(req, res);
    let m = /^\/v1\/files\/([^/]+)(\/content)?$/.exec(path);
    if (m) {
      const file = fake.files.get(decodeURIComponent(m[1]!));
      if (!file) return refuse(res, 404, "file_not_found", "No such file");
      if (method === "DELETE") {
        fake.files.delete(file.id);
        return send(res, 200, { id: file.id, object: "file", deleted: true });
      }
      if (m[2]) {
        res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": `attachment; filename="${file.filename}"` });
        return void res.end(file.content);
      }
      return send(res, 200, { id: file.id, object: "file", bytes: file.bytes, created_at: file.created_at, filename: file.filename, purpose: file.purpose });
    }
    if (path === "/v1/fine_tuning/jobs" && method === "POST") return createJob(req, res);
    if (path === "/v1/fine_tuning/jobs" && method === "GET") return send(res, 200, listPage([...fake.jobs].reverse().map(jobObject) as { id: string }[], url.searchParams));
    m = /^\/v1\/fine_tuning\/jobs\/([^/]+)(?:\/(events|checkpoints|cancel|pause|resume))?$/.exec(path);
    if (m) {
      const job = fake.jobs.find((j) => j.id === decodeURIComponent(m![1]!));
      if (!job) return refuse(res, 404, "not_found", "No such job");
      const action = m[2];
      if (action === "events") return send(res, 200, listPage([...job.events].reverse(), url.searchParams));
      if (action === "checkpoints") return send(res, 200, listPage([...job.checkpoints].reverse(), url.searchParams));
      if (action === "cancel" && fake.endBeforeCancel) {
        const hold = fake.holdAtStep;
        fake.holdAtStep = null;
        while (job.status === "running") advance(job);
        fake.holdAtStep = hold;
      }
      const ended = job.status === "succeeded" || job.status === "failed" || job.status === "cancelled";
      if (action === "cancel") {
        if (ended) return refuse(res, 400, "job_not_cancellable", "The job has ended");
        clearInterval(job.timer);
        job.status = "cancelled";
        job.finished_at = now();
        event(job, "Fine-tuning job cancelled");
      }
      if (action === "pause" && job.status === "running") job.status = "paused";
      if (action === "resume" && job.status === "paused") job.status = "running";
      return send(res, 200, jobObject(job));
    }
    m = /^\/v1\/models\/(.+)$/.exec(path);
    if (m) {
      const name = decodeURIComponent(m[1]!);
      const known = name === model || fake.jobs.some((j) => j.fineTunedModel && name.startsWith(j.fineTunedModel));
      if (!known) return refuse(res, 404, "model_not_found", "No such model");
      return send(res, 200, method === "DELETE" ? { id: name, object: "model", deleted: true } : { id: name, object: "model", owned_by: "fake-org" });
    }
    refuse(res, 404, "not_found", `No route ${method} ${path}`);
  }

  const server: Server = createServer((req, res) => {
    if (fake.down) {
      req.resume();
      return refuse(res, 503, "unavailable", "restarting");
    }
    route(req, res).catch((err: Error) => refuse(res, 500, "fake_error", err.message));
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${port}/v1`;
  fake.close = async () => {
    for (const job of fake.jobs) clearInterval(job.timer);
    await new Promise((r) => server.close(() => r(undefined)));
  };
  return fake;
}
