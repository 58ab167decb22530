// What the fine-tuning operations take and answer, in OpenAI's shapes: the create request (with
// `method` and the older top-level `hyperparameters`, each value a number or "auto"), the list
// queries, and the job, event and checkpoint objects with their list pages.
import { z } from "zod";
import { listPage, unixSeconds } from "../kernel/answer-schemas";

const auto = z.literal("auto");
const nEpochs = z.union([auto, z.number().int().min(1).max(50)]);
const batchSize = z.union([auto, z.number().int().min(1).max(256)]);
const learningRate = z.union([auto, z.number().positive().max(100)]);

export const ZHyperparametersInput = z.strictObject({
  n_epochs: nEpochs.optional(),
  batch_size: batchSize.optional(),
  learning_rate_multiplier: learningRate.optional(),
});

export const METHODS = ["supervised", "dpo", "reinforcement"] as const;

const ZMethodInput = z.strictObject({
  type: z.enum(METHODS, { error: `must be one of ${METHODS.join(", ")}` }),
  supervised: z.strictObject({ hyperparameters: ZHyperparametersInput.optional() }).optional(),
  // The other methods' settings are read only to refuse them clearly (create-job.ts).
  dpo: z.record(z.string(), z.unknown()).optional(),
  reinforcement: z.record(z.string(), z.unknown()).optional(),
});

const metadata = z
  .record(z.string().max(64), z.string().max(512))
  .refine((m) => Object.keys(m).length <= 16, "at most 16 keys");

/** What a fine-tuned model's name may carry after the base and the workspace (OpenAI's rule, plus a safe alphabet). */
export const SUFFIX = /^[A-Za-z0-9_-]{1,64}$/;

export const ZFineTuningCreate = z.strictObject({
  model: z.string().min(1),
  training_file: z.string().min(1),
  validation_file: z.string().min(1).nullable().optional(),
  suffix: z.string().regex(SUFFIX, "must be 1 to 64 letters, digits, `-` or `_`").nullable().optional(),
  seed: z.number().int().min(0).max(2147483647).nullable().optional(),
  metadata: metadata.nullable().optional(),
  method: ZMethodInput.optional(),
  /** Deprecated by OpenAI in favour of `method.supervised.hyperparameters`; still accepted. */
  hyperparameters: ZHyperparametersInput.optional(),
  /** Weights & Biases and the like are OpenAI's own: only an empty list is accepted. */
  integrations: z.array(z.unknown()).nullable().optional(),
});
export type FineTuningCreate = z.infer<typeof ZFineTuningCreate>;

export const ZFineTuningJobId = z.object({ fine_tuning_job_id: z.string().min(1) });

const paging = { after: z.string().min(1).optional(), limit: z.coerce.number().int().min(1).max(100).default(20) };

/**
 * GET /v1/fine_tuning/jobs: newest first, `after` the last id of the previous page; the other
 * query parameters are read for `metadata[key]=value` filters (manage-jobs.ts).
 */
export const ZFineTuningList = z.object(paging).catchall(z.string());
export type FineTuningList = z.infer<typeof ZFineTuningList>;

/** The events and checkpoints of a job, newest first, `after` the last id of the previous page. */
export const ZFineTuningPaged = z.object({ fine_tuning_job_id: z.string().min(1), ...paging });
export type FineTuningPaged = z.infer<typeof ZFineTuningPaged>;

export const JOB_STATUSES = ["validating_files", "queued", "running", "paused", "succeeded", "failed", "cancelled"] as const;

const ZHyperparameters = z.strictObject({
  n_epochs: z.number().int(),
  batch_size: z.number().int(),
  learning_rate_multiplier: z.number(),
});

export const ZJobError = z.strictObject({ code: z.string(), message: z.string(), param: z.string().nullable() });
export type JobError = z.infer<typeof ZJobError>;

export const ZFineTuningJob = z.strictObject({
  id: z.string().describe("Starts with `ftjob-`"),
  object: z.literal("fine_tuning.job"),
  created_at: unixSeconds,
  finished_at: unixSeconds.nullable(),
  model: z.string().describe("The base model"),
  fine_tuned_model: z.string().nullable().describe("`ft:<base>:<workspace>:<suffix>:<id>`, once succeeded"),
  organization_id: z.string().describe("The workspace's id"),
  status: z.enum(JOB_STATUSES),
  training_file: z.string(),
  validation_file: z.string().nullable(),
  result_files: z.array(z.string()).describe("File ids (purpose `fine-tune-results`): the metrics CSV"),
  trained_tokens: z.number().int().nullable().describe("Tokens trained (all epochs); while running, those trained so far"),
  hyperparameters: ZHyperparameters.describe("Resolved: \"auto\" is answered with the number used"),
  method: z.strictObject({ type: z.literal("supervised"), supervised: z.strictObject({ hyperparameters: ZHyperparameters }) }),
  seed: z.number().int(),
  estimated_finish: unixSeconds.nullable(),
  error: ZJobError.nullable(),
  metadata: z.record(z.string(), z.string()).nullable(),
  suffix: z.string().nullable(),
  user_provided_suffix: z.string().nullable(),
});
export type FineTuningJobObject = z.infer<typeof ZFineTuningJob>;

export const ZFineTuningEvent = z.strictObject({
  id: z.string().describe("Starts with `ftevent-`"),
  object: z.literal("fine_tuning.job.event"),
  created_at: unixSeconds,
  level: z.enum(["info", "warn", "error"]),
  message: z.string(),
  type: z.enum(["message", "metrics"]),
  data: z.record(z.string(), z.unknown()).describe("For a metrics event: step, total_steps, train_loss, train_mean_token_accuracy, valid_loss, valid_mean_token_accuracy"),
});
export type FineTuningEventObject = z.infer<typeof ZFineTuningEvent>;

const metric = z.number().optional();
export const ZFineTuningCheckpoint = z.strictObject({
  id: z.string().describe("Starts with `ftckpt-`"),
  object: z.literal("fine_tuning.job.checkpoint"),
  created_at: unixSeconds,
  fine_tuned_model_checkpoint: z.string().describe("A model of its own: `<fine-tuned model>:ckpt-step-<N>`"),
  step_number: z.number().int(),
  metrics: z.strictObject({
    step: metric,
    train_loss: metric,
    train_mean_token_accuracy: metric,
    valid_loss: metric,
    valid_mean_token_accuracy: metric,
    full_valid_loss: metric,
    full_valid_mean_token_accuracy: metric,
  }),
  fine_tuning_job_id: z.string(),
});
export type FineTuningCheckpointObject = z.infer<typeof ZFineTuningCheckpoint>;

export const ZFineTuningJobPage = listPage(ZFineTuningJob);
export const ZFineTuningEventPage = listPage(ZFineTuningEvent);
export const ZFineTuningCheckpointPage = listPage(ZFineTuningCheckpoint);
export type Page<T> = { object: "list"; data: T[]; first_id: string | null; last_id: string | null; has_more: boolean };
