// The worker's side of a fine-tuning job (one pg-boss attempt): take the job, validate its files
// line by line, put it on a node that serves its base model (files uploaded, the node's job
// created once), then follow it there to its end (mirror.ts). Every id the node gives is written
// on the job as soon as it is known, so an attempt that follows a crash (a worker killed, its
// heartbeat gone) goes on with the same node job: the model is trained once and billed once.
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { readFileBytes } from "../files/find-file";
import { liveFile } from "../files/find-file";
import { db, type Tx } from "../infra/db/client";
import { env } from "../infra/env";
import { logFor } from "../infra/telemetry/log";
import { GatewayError } from "../kernel/errors";
import { getRoutableNodes } from "../routing/nodes/node-registry";
import { pickNode } from "../routing/nodes/router";
import { tunedModelName } from "../routing/catalog/tuned-models";
import { FINE_TUNE_RETRY_LIMIT } from "./create-job";
import { readTrainingFile } from "./file-rules";
import { addJobEvent, finishJob, TERMINAL_STATUSES } from "./job-outcome";
import type { JobRow, StoredMethod } from "./job-object";
import { cancelOnNode, mirrorJob, NodeGone, Superseded, type Placed } from "./mirror";
import { nodeFineTuning, nodeIsDown, type NodeFineTuning, type NodeJob, type NodeJobRequest } from "./node-client";
import type { JobError } from "./schema";

const log = logFor("fine-tuning");

export const FINE_TUNE_WORKER_ID = `${hostname()}:${process.pid}`;

/** The node metadata key that names the gateway's job: a resumed attempt finds a node job it may have created. */
const GATEWAY_JOB_KEY = "gateway_job_id";
/** OpenAI's limit of metadata keys. */
const MAX_METADATA_KEYS = 16;

/** A failure that retrying cannot mend: the job ends `failed` with it. */
class JobFailed extends Error {
  constructor(readonly error: JobError) {
    super(error.message);
  }
}

/** Takes the job for this attempt; null when it has ended (or is gone). */
async function claim(jobId: string): Promise<JobRow | null> {
  const [row] = await db.fineTuningJob.updateManyAndReturn({
    where: { id: jobId, status: { notIn: [...TERMINAL_STATUSES] } },
    data: { attempts: { increment: 1 }, workerId: FINE_TUNE_WORKER_ID },
  });
  return row ?? null;
}

/** Changes the job only while this attempt holds it; Superseded otherwise. */
async function update(job: JobRow, data: Parameters<typeof db.fineTuningJob.updateMany>[0]["data"], status?: JobRow["status"], tx: Tx = db): Promise<void> {
  const where = { id: job.id, attempts: job.attempts, status: status ?? { notIn: [...TERMINAL_STATUSES] } };
  if (!(await tx.fineTuningJob.updateMany({ where, data })).count) throw new Superseded();
}

/** Validates the training and validation files as OpenAI does; the first problem fails the job, naming its line. */
async function validate(job: JobRow): Promise<void> {
  const model = await db.model.findUnique({ where: { id: job.model }, select: { contextLength: true } });
  if (!model) throw new JobFailed({ code: "model_not_found", message: `The base model \`${job.model}\` is no longer in the catalog.`, param: "model" });
  const files = [
    { param: "training_file", id: job.trainingFileId, code: "invalid_training_file", min: undefined },
    ...(job.validationFileId ? [{ param: "validation_file", id: job.validationFileId, code: "invalid_validation_file", min: 1 }] : []),
  ];
  for (const f of files) {
    const row = await db.storedFile.findFirst({ where: { id: f.id, workspaceId: job.workspaceId, ...liveFile() } });
    if (!row) throw new JobFailed({ code: f.code, message: `File '${f.id}' no longer exists.`, param: f.param });
    const report = await readTrainingFile((await readFileBytes(row)).toString("utf8"), model.contextLength, f.min);
    const first = report.errors[0];
    if (first) throw new JobFailed({ code: f.code, message: first.message, param: f.param });
  }
  // The status and its event in one transaction: a cancel arriving meanwhile waits for the row,
  // so its event comes after this one (events are listed in the order they were written).
  await db.$transaction(async (tx) => {
    await update(job, { status: "queued" }, "validating_files", tx);
    await addJobEvent(job.id, { message: "Files validated, moving job to queued state" }, tx);
  });
  job.status = "queued";
}

/** The node a job was put on, as its row (it may be offline for now: the mirror waits for it). */
async function nodeOf(nodeId: string): Promise<NodeFineTuning> {
  const node = await db.node.findUnique({ where: { id: nodeId } });
  if (!node) throw new JobFailed({ code: "node_unavailable", message: "The node training this job was removed from the gateway.", param: null });
  return nodeFineTuning(node);
}

/** A node serving the base model: the one the job's files went to when it still serves it, else the router's pick (waited for while none is up). */
async function chooseNode(job: JobRow, signal: AbortSignal): Promise<{ nodeId: string; upstreamModel: string; client: NodeFineTuning }> {
  const since = Date.now();
  for (;;) {
    const nodes = await getRoutableNodes();
    const previous = job.nodeId ? nodes.find((n) => n.id === job.nodeId && n.online && n.models.has(job.model)) : undefined;
    const routed = previous ? { node: previous, upstreamModel: previous.models.get(job.model)! } : await pickNode(job.model);
    if (routed) return { nodeId: routed.node.id, upstreamModel: routed.upstreamModel, client: nodeFineTuning(routed.node) };
    if (Date.now() - since > env.FINE_TUNE_NODE_DOWN_SECONDS * 1000) {
      throw new JobFailed({ code: "no_available_node", message: `No node serving \`${job.model}\` was available for ${env.FINE_TUNE_NODE_DOWN_SECONDS} seconds.`, param: null });
    }
    await sleep(env.FINE_TUNE_POLL_INTERVAL_MS, undefined, { signal });
  }
}

/** A node job an earlier attempt created but could not write down (it died in between). */
async function createdEarlier(client: NodeFineTuning, jobId: string, signal: AbortSignal): Promise<NodeJob | null> {
  let after: string | undefined;
  try {
    for (let pages = 0; pages < 5; pages++) {
      const page = await client.listJobs(after, signal);
      const found = page.data.find((j) => j.metadata?.[GATEWAY_JOB_KEY] === jobId);
      if (found) return found;
      if (!page.hasMore || !page.data.length) return null;
      after = page.data[page.data.length - 1]!.id;
    }
  } catch (err) {
    if (signal.aborted || nodeIsDown(err)) throw err;
    // A node that cannot list its jobs: nothing to find.
  }
  return null;
}

function nodeRequest(job: JobRow, upstreamModel: string, trainingFile: string, validationFile: string | null): NodeJobRequest {
  const metadata = { ...((job.metadata as Record<string, string> | null) ?? {}) };
  if (Object.keys(metadata).length < MAX_METADATA_KEYS) metadata[GATEWAY_JOB_KEY] = job.id;
  const method = job.method as StoredMethod;
  return {
    model: upstreamModel,
    training_file: trainingFile,
    ...(validationFile && { validation_file: validationFile }),
    ...(job.suffix && { suffix: job.suffix }),
    seed: job.seed,
    metadata,
    method: { type: "supervised", supervised: { hyperparameters: { ...method.supervised.hyperparameters } } },
  };
}

/** Uploads a gateway file to the node (purpose fine-tune); returns the node's file id. */
async function upload(client: NodeFineTuning, job: JobRow, fileId: string, signal: AbortSignal): Promise<string> {
  const row = await db.storedFile.findFirst({ where: { id: fileId, workspaceId: job.workspaceId } });
  if (!row) throw new JobFailed({ code: "invalid_training_file", message: `File '${fileId}' no longer exists.`, param: "training_file" });
  return (await client.uploadFile(row.filename, await readFileBytes(row), signal)).id;
}

/** Puts the job on a node: its files uploaded and its node job created, each id written down at once. */
async function place(job: JobRow, signal: AbortSignal): Promise<{ job: Placed; client: NodeFineTuning }> {
  if (job.nodeId && job.nodeJobId) return { job: job as Placed, client: await nodeOf(job.nodeId) };
  const chosen = await chooseNode(job, signal);
  if (chosen.nodeId !== job.nodeId) {
    await update(job, { nodeId: chosen.nodeId, nodeTrainingFileId: null, nodeValidationFileId: null });
    Object.assign(job, { nodeId: chosen.nodeId, nodeTrainingFileId: null, nodeValidationFileId: null });
  }
  const { client } = chosen;
  const earlier = job.attempts > 1 ? await createdEarlier(client, job.id, signal) : null;
  if (earlier) {
    await update(job, { nodeJobId: earlier.id });
    job.nodeJobId = earlier.id;
    return { job: job as Placed, client };
  }
  if (!job.nodeTrainingFileId) {
    job.nodeTrainingFileId = await upload(client, job, job.trainingFileId, signal);
    await update(job, { nodeTrainingFileId: job.nodeTrainingFileId });
  }
  if (job.validationFileId && !job.nodeValidationFileId) {
    job.nodeValidationFileId = await upload(client, job, job.validationFileId, signal);
    await update(job, { nodeValidationFileId: job.nodeValidationFileId });
  }
  // Asked for the last time before the node job exists: a job cancelled meanwhile is never trained.
  const now = await db.fineTuningJob.findUnique({ where: { id: job.id }, select: { cancelRequested: true } });
  if (now?.cancelRequested) {
    await finishJob(job.id, { status: "cancelled", trainedTokens: 0 });
    throw new Superseded();
  }
  let created: NodeJob;
  try {
    created = await client.createJob(nodeRequest(job, chosen.upstreamModel, job.nodeTrainingFileId, job.nodeValidationFileId), signal);
  } catch (err) {
    // No answer (a timeout) does not mean no job: one the node made anyway is taken, never made twice.
    const made = !signal.aborted && nodeIsDown(err) ? await createdEarlier(client, job.id, signal).catch(() => null) : null;
    if (!made) throw err;
    created = made;
  }
  try {
    await update(job, { nodeJobId: created.id });
  } catch (err) {
    // Ended meanwhile (cancelled before it reached the node): the node's job must not train on.
    await afterEndOnNode(client, job.id, created.id, signal);
    throw err;
  }
  job.nodeJobId = created.id;
  return { job: job as Placed, client };
}

/** The gateway's name of the job's tuned model. */
async function gatewayModelOf(job: JobRow): Promise<string> {
  const workspace = await db.workspace.findUnique({ where: { id: job.workspaceId }, select: { name: true } });
  return tunedModelName(job.model, workspace?.name ?? "", job.suffix, job.id);
}

/** A node job created for a job that ended meanwhile: cancelled there when the gateway's job was cancelled. */
async function afterEndOnNode(client: NodeFineTuning, jobId: string, nodeJobId: string, signal: AbortSignal): Promise<void> {
  const row = await db.fineTuningJob.findUnique({ where: { id: jobId }, select: { status: true } });
  if (row?.status === "cancelled" || row?.status === "failed") await cancelOnNode(client, nodeJobId, signal);
}

/** A job already ended: a cancel the node could not be told of is passed on. */
async function afterEnd(jobId: string, signal: AbortSignal): Promise<void> {
  const row = await db.fineTuningJob.findUnique({ where: { id: jobId }, select: { status: true, cancelRequested: true, nodeId: true, nodeJobId: true } });
  if (row?.status !== "cancelled" || !row.cancelRequested || !row.nodeId || !row.nodeJobId) return;
  const node = await db.node.findUnique({ where: { id: row.nodeId } });
  if (node) await cancelOnNode(nodeFineTuning(node), row.nodeJobId, signal);
}

/** The node refused what it was asked (not a failure of its own): the job fails with the node's words. */
function refusal(err: unknown): JobError | null {
  if (err instanceof JobFailed) return err.error;
  if (err instanceof NodeGone) return { code: err.code, message: err.message, param: null };
  if (err instanceof GatewayError && err.status < 500 && err.status !== 429 && !nodeIsDown(err)) return { code: err.code, message: err.message, param: err.param };
  return null;
}

/**
 * Runs one attempt of a job. Returns normally when the job reached its end (or already had);
 * throws to have the queue retry it later, except on the last attempt, which fails it.
 */
export async function runFineTuneJob(jobId: string, opts: { signal?: AbortSignal; retryCount?: number } = {}): Promise<void> {
  const signal = opts.signal ?? new AbortController().signal;
  const job = await claim(jobId);
  if (!job) {
    await afterEnd(jobId, signal).catch((err) => log.warn({ err, job: jobId }, "fine-tuning: the node's job could not be cancelled"));
    return;
  }
  try {
    if (job.status === "validating_files") await validate(job);
    const placed = await place(job, signal);
    await mirrorJob({ job: placed.job, client: placed.client, gatewayModel: await gatewayModelOf(job), signal });
  } catch (err) {
    if (signal.aborted) throw err; // the queue took the job back (shutdown, a lost claim): another attempt follows
    if (err instanceof Superseded) return;
    const failed = refusal(err);
    if (failed) {
      await finishJob(jobId, { status: "failed", error: failed });
      return;
    }
    if ((opts.retryCount ?? 0) >= FINE_TUNE_RETRY_LIMIT) {
      await finishJob(jobId, { status: "failed", error: { code: "fine_tuning_failed", message: "The job could not be run: the node or the gateway failed repeatedly.", param: null } });
      return;
    }
    log.error({ err }, `fine-tuning ${jobId}: attempt ${(opts.retryCount ?? 0) + 1} failed, will retry`);
    throw err;
  }
}
