// A fine-tuning job's row as OpenAI's `fine_tuning.job` object, and its events and checkpoints as
// theirs. The hyperparameters are always the resolved numbers (never "auto"); the organization is
// the workspace.
import type { Prisma } from "../generated/prisma/client";
import type { Hyperparameters } from "./hyperparameters";
import type { FineTuningCheckpointObject, FineTuningEventObject, FineTuningJobObject, JobError } from "./schema";

export type JobRow = Prisma.FineTuningJobGetPayload<object>;
export type EventRow = Prisma.FineTuningEventGetPayload<object>;
export type CheckpointRow = Prisma.FineTuningCheckpointGetPayload<object>;

/** What a job's `method` column holds: the supervised method with its resolved hyperparameters. */
export type StoredMethod = { type: "supervised"; supervised: { hyperparameters: Hyperparameters } };

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
const secondsOrNull = (d: Date | null) => (d ? seconds(d) : null);

export function toJobObject(row: JobRow): FineTuningJobObject {
  const method = row.method as StoredMethod;
  return {
    id: row.id,
    object: "fine_tuning.job",
    created_at: seconds(row.createdAt),
    finished_at: secondsOrNull(row.finishedAt),
    model: row.model,
    fine_tuned_model: row.fineTunedModel,
    organization_id: row.workspaceId,
    status: row.status,
    training_file: row.trainingFileId,
    validation_file: row.validationFileId,
    result_files: row.resultFiles,
    trained_tokens: row.trainedTokens,
    hyperparameters: method.supervised.hyperparameters,
    method,
    seed: row.seed,
    // Only a job that is still training has an estimate.
    estimated_finish: row.status === "running" || row.status === "queued" ? secondsOrNull(row.estimatedFinish) : null,
    error: (row.error as JobError | null) ?? null,
    metadata: (row.metadata as Record<string, string> | null) ?? null,
    suffix: row.suffix,
    user_provided_suffix: row.suffix,
  };
}

export function toEventObject(row: EventRow): FineTuningEventObject {
  return {
    id: row.id,
    object: "fine_tuning.job.event",
    created_at: seconds(row.createdAt),
    level: row.level === "warn" || row.level === "error" ? row.level : "info",
    message: row.message,
    type: row.type === "metrics" ? "metrics" : "message",
    data: (row.data as Record<string, unknown> | null) ?? {},
  };
}

const METRICS = ["step", "train_loss", "train_mean_token_accuracy", "valid_loss", "valid_mean_token_accuracy", "full_valid_loss", "full_valid_mean_token_accuracy"] as const;

export function toCheckpointObject(row: CheckpointRow): FineTuningCheckpointObject {
  const stored = (row.metrics ?? {}) as Record<string, unknown>;
  // A metric the node did not give (no validation file) is left out rather than null.
  const metrics = Object.fromEntries(METRICS.filter((k) => typeof stored[k] === "number").map((k) => [k, stored[k] as number]));
  return {
    id: row.id,
    object: "fine_tuning.job.checkpoint",
    created_at: seconds(row.createdAt),
    fine_tuned_model_checkpoint: row.fineTunedModelCheckpoint,
    step_number: row.stepNumber,
    metrics,
    fine_tuning_job_id: row.jobId,
  };
}
