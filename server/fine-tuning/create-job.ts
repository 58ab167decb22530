// POST /v1/fine_tuning/jobs: check the base model, the files and the method; count the training
// file's tokens and resolve "auto" hyperparameters; then hold the training's price and insert the
// job with its queue entry, all in one transaction: a job exists only with its money held and its
// run queued, or not at all (ledger/fine-tune-money.ts). The file is validated line by line by
// the job's worker, which fails the job (and gives the hold back) when a line is wrong.
import { randomInt } from "node:crypto";
import { admitWithoutHold } from "../admission/admit";
import { findFile, readFileBytes } from "../files/find-file";
import type { CallContext } from "../identity/principal";
import { db, type Tx } from "../infra/db/client";
import { inTransaction, jobQueue, QUEUES } from "../infra/jobs/boss";
import { errors } from "../kernel/errors";
import { newId } from "../kernel/ids";
import { formatMoney, money } from "../kernel/money";
import { FINE_TUNING_ENDPOINT, trainingCost, withFineTuneReservation } from "../ledger/fine-tune-money";
import { resolveModel } from "../routing/catalog/catalog-cache";
import type { ModelRow } from "../routing/catalog/model-row";
import { readTrainingFile } from "./file-rules";
import { resolveHyperparameters, type Hyperparameters } from "./hyperparameters";
import { addJobEvent } from "./job-outcome";
import { toJobObject, type StoredMethod } from "./job-object";
import type { FineTuningCreate, FineTuningJobObject } from "./schema";

/** What a fine-tune queue entry carries. */
export type FineTuneJobData = { jobId: string };

/** How often pg-boss runs a job again after its worker died or failed; each attempt resumes the node's job. */
export const FINE_TUNE_RETRY_LIMIT = 20;
/** A worker that stops beating for this long is taken as dead, and the job is run again. */
export const FINE_TUNE_HEARTBEAT_SECONDS = 10;

/** The base model: one of the catalog's own (not a tuned one), marked tunable and served by a node. */
async function baseModel(model: string, workspaceId: string): Promise<ModelRow> {
  const { row } = await resolveModel(model, workspaceId);
  const notTunable = (why: string) => errors.invalidRequest(`The model \`${model}\` cannot be fine-tuned: ${why}.`, "model", "model_not_fine_tunable");
  if (!row.fineTunable || row.ownerWorkspaceId !== null) throw notTunable("no node offers to tune it");
  const nodes = await db.nodeModel.count({ where: { modelId: row.id, node: { enabled: true } } });
  if (!nodes) throw notTunable("no node serves it");
  return row;
}

/** A `fine-tune` file of the caller's workspace, or 404 / 400 naming the field it came in. */
async function fineTuneFile(workspaceId: string, id: string, param: "training_file" | "validation_file") {
  const file = await findFile(workspaceId, id, param);
  if (file.purpose !== "fine-tune") {
    throw errors.invalidRequest(`File '${file.id}' has purpose '${file.purpose}'; fine-tuning reads files uploaded with purpose 'fine-tune'.`, param, "invalid_file_purpose");
  }
  return file;
}

/** The method asked for: supervised only (no node of the gateway trains the others), with its hyperparameters. */
function supervisedInput(req: FineTuningCreate) {
  const type = req.method?.type ?? "supervised";
  if (type !== "supervised") {
    throw errors.invalidRequest(`The \`${type}\` method is not offered: the nodes of this gateway train \`supervised\` jobs only.`, "method.type", "unsupported_method");
  }
  const inMethod = req.method?.supervised?.hyperparameters;
  if (inMethod && req.hyperparameters) {
    throw errors.invalidRequest("Give the hyperparameters in `method.supervised.hyperparameters` or at the top level, not both.", "hyperparameters");
  }
  return inMethod ?? req.hyperparameters;
}

type NewJob = {
  id: string;
  workspaceId: string;
  apiKeyId: string | null;
  planId: string | null;
  subject: string | null;
  model: string;
  seed: number;
  hyperparameters: Hyperparameters;
  estimatedTokens: number;
  pricePer1m: string;
  reserved: string;
};

/** Inserts the job, its first events and its queue entry, in the caller's transaction. */
async function insertJob(tx: Tx, job: NewJob, req: FineTuningCreate) {
  const method: StoredMethod = { type: "supervised", supervised: { hyperparameters: job.hyperparameters } };
  const created = await tx.fineTuningJob.create({
    data: {
      id: job.id,
      workspaceId: job.workspaceId,
      apiKeyId: job.apiKeyId,
      planId: job.planId,
      subject: job.subject,
      model: job.model,
      trainingFileId: req.training_file,
      validationFileId: req.validation_file ?? null,
      suffix: req.suffix ?? null,
      seed: job.seed,
      method,
      metadata: req.metadata ?? undefined,
      estimatedTokens: job.estimatedTokens,
      pricePer1m: job.pricePer1m,
      reservedAmount: job.reserved,
    },
  });
  await addJobEvent(job.id, { message: `Created fine-tuning job: ${job.id}` }, tx);
  await addJobEvent(job.id, { message: `Validating training file: ${req.training_file}${req.validation_file ? ` and validation file: ${req.validation_file}` : ""}` }, tx);
  const data: FineTuneJobData = { jobId: job.id };
  await (await jobQueue()).send(QUEUES.fineTune, data, {
    db: inTransaction(tx),
    retryLimit: FINE_TUNE_RETRY_LIMIT,
    retryDelay: 2,
    retryBackoff: true,
    heartbeatSeconds: FINE_TUNE_HEARTBEAT_SECONDS,
    // pg-boss caps an attempt at 24 h; a resumed attempt goes on with the node's job.
    expireInSeconds: 24 * 3600,
  });
  return created;
}

export async function createFineTuningJob(ctx: CallContext, req: FineTuningCreate): Promise<FineTuningJobObject> {
  if (ctx.principal.kind === "x402") {
    throw errors.invalidRequest(
      "Fine-tuning cannot be paid with x402: a job outlives one payment (it is held at create and settled when training ends). Call with an API key of a workspace with credits.",
      null,
      "fine_tuning_not_payable",
    );
  }
  if (req.integrations?.length) throw errors.invalidRequest("Integrations (Weights & Biases) are not offered by this gateway.", "integrations", "unsupported_integration");
  const hyperparameterInput = supervisedInput(req);
  const workspaceId = ctx.principal.workspaceId;
  const row = await baseModel(req.model, workspaceId);
  const training = await fineTuneFile(workspaceId, req.training_file, "training_file");
  if (req.validation_file) await fineTuneFile(workspaceId, req.validation_file, "validation_file");

  // Tokens of one pass over the file, counted as the node counts them: what the hold is made of.
  const report = await readTrainingFile((await readFileBytes(training)).toString("utf8"), row.contextLength);
  const hyperparameters = resolveHyperparameters(hyperparameterInput, report.examples);
  const pricePer1m = formatMoney(row.priceTrainingPer1m);
  const reserved = formatMoney(trainingCost(report.tokensPerEpoch * hyperparameters.n_epochs, pricePer1m));
  const id = newId("ftjob");

  const refusal = () =>
    errors.insufficientQuota(
      `This job can cost up to ${reserved} USD (${report.tokensPerEpoch} tokens x ${hyperparameters.n_epochs} epochs at ${pricePer1m} USD per 1M tokens), more than the workspace's balance. Add credits, or train fewer epochs or a smaller file.`,
    );
  const gate = await admitWithoutHold(ctx, { endpoint: FINE_TUNING_ENDPOINT, model: row.id, maxCost: money(reserved) });
  const payer = { id, workspaceId, apiKeyId: ctx.principal.keyId, subject: gate.access.subject, budgets: gate.access.budgets };
  const job: NewJob = {
    id,
    workspaceId,
    apiKeyId: ctx.principal.keyId,
    planId: gate.access.planId,
    subject: gate.access.subject,
    model: row.id,
    seed: req.seed ?? randomInt(0, 2147483647),
    hyperparameters,
    estimatedTokens: report.tokensPerEpoch,
    pricePer1m,
    reserved,
  };
  const created = await withFineTuneReservation(payer, reserved, refusal, (tx) => insertJob(tx, job, req)).finally(gate.end);
  return toJobObject(created);
}
