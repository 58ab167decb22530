// The fine-tuning API's objects as the node answers them (OpenAI's shapes), and what the node
// keeps beside each job to run it.
import type { Hyperparameters } from "./examples";

export type FileObject = {
  id: string;
  object: "file";
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
  status: "processed";
  status_details: null;
  expires_at: null;
};

export type JobStatus = "validating_files" | "queued" | "running" | "paused" | "succeeded" | "failed" | "cancelled";
export const TERMINAL: ReadonlySet<JobStatus> = new Set(["succeeded", "failed", "cancelled"]);

export type JobError = { code: string; message: string; param: string | null };

export type JobObject = {
  id: string;
  object: "fine_tuning.job";
  created_at: number;
  finished_at: number | null;
  model: string;
  fine_tuned_model: string | null;
  organization_id: string;
  status: JobStatus;
  training_file: string;
  validation_file: string | null;
  result_files: string[];
  trained_tokens: number | null;
  hyperparameters: Hyperparameters;
  method: { type: "supervised"; supervised: { hyperparameters: Hyperparameters } };
  seed: number;
  estimated_finish: number | null;
  error: JobError | null;
  suffix: string | null;
  user_provided_suffix: string | null;
  metadata: Record<string, string> | null;
  integrations: [];
};

export type EventObject = {
  id: string;
  object: "fine_tuning.job.event";
  created_at: number;
  level: "info" | "warn" | "error";
  message: string;
  type: "message" | "metrics";
  data: Record<string, unknown> | null;
};

export type CheckpointMetrics = {
  step: number;
  train_loss: number;
  train_mean_token_accuracy: number;
  valid_loss: number | null;
  valid_mean_token_accuracy: number | null;
  full_valid_loss: number | null;
  full_valid_mean_token_accuracy: number | null;
};

export type CheckpointObject = {
  id: string;
  object: "fine_tuning.job.checkpoint";
  created_at: number;
  fine_tuned_model_checkpoint: string;
  step_number: number;
  metrics: CheckpointMetrics;
  fine_tuning_job_id: string;
};

/** What the node keeps beside a job's API object. */
export type JobRecord = {
  job: JobObject;
  /** The name the model gets when the job succeeds (its checkpoints are named after it). */
  modelName: string;
  /** Events oldest first, each with the training step it was written at (0 before training). */
  events: (EventObject & { step: number })[];
  /** Checkpoints oldest first. */
  checkpoints: CheckpointObject[];
  /** The saved training state to go on from (a checkpoint's or a pause's), with its step. */
  resume: { file: string; step: number } | null;
};

/** A tuned model the node answers as: a job's final model or one of its checkpoints. */
export type TunedModelEntry = { id: string; jobId: string; base: string; file: string; created: number; step: number | null };
