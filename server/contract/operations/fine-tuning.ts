// Fine-tuning: jobs that train a model on a `fine-tune` file, run by a node that trains (the
// built-in node, or an OpenAI-format node that passes them through), held at create and billed
// per token trained (server/fine-tuning/).
import { createFineTuningJob } from "../../fine-tuning/create-job";
import { listCheckpoints, listEvents } from "../../fine-tuning/job-history";
import { cancelJob, getJob, listJobs, pauseJob, resumeJob } from "../../fine-tuning/manage-jobs";
import {
  ZFineTuningCheckpointPage,
  ZFineTuningCreate,
  ZFineTuningEventPage,
  ZFineTuningJob,
  ZFineTuningJobId,
  ZFineTuningJobPage,
  ZFineTuningList,
  ZFineTuningPaged,
  type FineTuningPaged,
} from "../../fine-tuning/schema";
import type { z } from "zod";
import { operation, type CallContext } from "../operation";

const common = { tags: ["Fine-tuning"], permission: "fine_tuning", produces: { kind: "json" } } as const;
const JOB = "/v1/fine_tuning/jobs/{fine_tuning_job_id}";
const free = { kind: "free" } as const;

const fineTuningCreate = operation({
  ...common,
  id: "fineTuning.create",
  method: "POST",
  path: "/v1/fine_tuning/jobs",
  summary: "Create a fine-tuning job from an uploaded `fine-tune` file (validated, then trained by a node)",
  kind: "mutation",
  tier: "billed",
  // x402 callers reach the service only to be told why they cannot train (400 fine_tuning_not_payable).
  x402: "read",
  body: { kind: "json" },
  input: ZFineTuningCreate,
  output: ZFineTuningJob,
  errors: {
    400: "A field fails validation; a file of another purpose (`invalid_file_purpose`); a model that cannot be tuned (`model_not_fine_tunable`); `dpo` or `reinforcement` (`unsupported_method`); an x402 caller (`fine_tuning_not_payable`: a job outlives one payment).",
    404: "No such model (`model_not_found`), or no such training or validation file in the workspace (`file_not_found`).",
  },
  pricing: {
    kind: "metered",
    unit: "tokens",
    note: "the file's tokens × epochs × the base model's `training_per_1m` are held at create; settled on the tokens trained when the job succeeds (or is cancelled: what was trained so far); a failed job costs nothing",
  },
  handler: (ctx, input) => createFineTuningJob(ctx, input),
});

const fineTuningList = operation({
  ...common,
  id: "fineTuning.list",
  method: "GET",
  path: "/v1/fine_tuning/jobs",
  summary: "List fine-tuning jobs, newest first (`metadata[key]=value` filters)",
  kind: "query",
  tier: "api_key",
  body: { kind: "none" },
  query: true,
  input: ZFineTuningList,
  output: ZFineTuningJobPage,
  pricing: free,
  handler: (ctx, input) => listJobs(ctx, input),
});

const fineTuningGet = operation({
  ...common,
  id: "fineTuning.get",
  method: "GET",
  path: JOB,
  summary: "Retrieve a fine-tuning job",
  kind: "query",
  tier: "api_key",
  body: { kind: "none" },
  input: ZFineTuningJobId,
  output: ZFineTuningJob,
  pricing: free,
  handler: (ctx, input) => getJob(ctx, input.fine_tuning_job_id),
});

/** POST .../{fine_tuning_job_id}/<action>: a change of a job's state, answered with the job. */
function jobAction(action: "cancel" | "pause" | "resume", summary: string, conflict: string, handler: typeof cancelJob) {
  return operation({
    ...common,
    id: `fineTuning.${action}`,
    method: "POST",
    path: `${JOB}/${action}`,
    summary,
    kind: "mutation",
    tier: "api_key",
    body: { kind: "none" },
    input: ZFineTuningJobId,
    output: ZFineTuningJob,
    errors: { 409: conflict },
    pricing: free,
    handler: (ctx, input) => handler(ctx, input.fine_tuning_job_id),
  });
}

/** GET .../{fine_tuning_job_id}/<list>: a job's events or checkpoints, newest first. */
function jobHistory<T extends z.ZodType>(list: "events" | "checkpoints", summary: string, output: T, handler: (ctx: CallContext, q: FineTuningPaged) => Promise<z.output<T>>) {
  return operation({
    ...common,
    id: `fineTuning.${list}`,
    method: "GET",
    path: `${JOB}/${list}`,
    summary,
    kind: "query",
    tier: "api_key",
    body: { kind: "none" },
    query: true,
    input: ZFineTuningPaged,
    output,
    pricing: free,
    handler,
  });
}

export const fineTuningOperations = {
  create: fineTuningCreate,
  list: fineTuningList,
  get: fineTuningGet,
  cancel: jobAction("cancel", "Cancel a fine-tuning job: the tokens trained so far are charged, the rest of the hold given back", "The job has already ended (`job_not_cancellable`).", cancelJob),
  pause: jobAction("pause", "Pause a running fine-tuning job", "The job is not running (`job_not_pausable`).", pauseJob),
  resume: jobAction("resume", "Resume a paused fine-tuning job", "The job is not paused (`job_not_resumable`).", resumeJob),
  events: jobHistory("events", "List a fine-tuning job's events, newest first (messages, and a metrics event per step)", ZFineTuningEventPage, listEvents),
  checkpoints: jobHistory("checkpoints", "List a fine-tuning job's checkpoints, newest first (each a model of its own)", ZFineTuningCheckpointPage, listCheckpoints),
};
