// What a node's fine-tuning API answers (OpenAI's shapes), read into the gateway's own types:
// jobs, events, checkpoints and list pages. Anything else is a protocol failure of the node.
import { UpstreamFailure } from "../providers/upstream-failure";

export type NodeJobStatus = "validating_files" | "queued" | "running" | "paused" | "succeeded" | "failed" | "cancelled";

export type NodeFile = { id: string; bytes: number; filename: string; purpose: string };

export type NodeHyperparameters = { n_epochs: number | "auto"; batch_size: number | "auto"; learning_rate_multiplier: number | "auto" };

/** The body of a node's `POST /fine_tuning/jobs`. */
export type NodeJobRequest = {
  model: string;
  training_file: string;
  validation_file?: string | null;
  suffix?: string | null;
  seed?: number | null;
  metadata?: Record<string, string> | null;
  method: { type: "supervised"; supervised: { hyperparameters: NodeHyperparameters } };
};

export type NodeJob = {
  id: string;
  status: NodeJobStatus;
  model: string;
  fineTunedModel: string | null;
  trainedTokens: number | null;
  /** Unix seconds, or null. */
  estimatedFinish: number | null;
  createdAt: number | null;
  finishedAt: number | null;
  resultFiles: string[];
  error: { code: string; message: string; param: string | null } | null;
  metadata: Record<string, unknown> | null;
};

export type NodeEvent = { id: string; createdAt: number; level: "info" | "warn" | "error"; message: string; type: "message" | "metrics"; data: unknown };

export type NodeCheckpoint = { id: string; createdAt: number; model: string; step: number; metrics: Record<string, unknown> };

export type NodePage<T> = { data: T[]; hasMore: boolean };

const STATUSES = new Set<NodeJobStatus>(["validating_files", "queued", "running", "paused", "succeeded", "failed", "cancelled"]);
const ENDED = new Set<NodeJobStatus>(["succeeded", "failed", "cancelled"]);

/** Whether a node's job has ended (succeeded, failed or cancelled). */
export const nodeJobEnded = (status: NodeJobStatus) => ENDED.has(status);

export const finite = (v: unknown): number | null => {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) ? n : null;
};

export function toJob(raw: Record<string, unknown>): NodeJob {
  const status = String(raw.status) as NodeJobStatus;
  if (typeof raw.id !== "string" || !STATUSES.has(status)) throw new UpstreamFailure("protocol", "the node answered something that is not a fine-tuning job", 502);
  const err = raw.error as { code?: unknown; message?: unknown; param?: unknown } | null | undefined;
  const hasError = !!err && (err.code != null || err.message != null);
  return {
    id: raw.id,
    status,
    model: String(raw.model ?? ""),
    fineTunedModel: typeof raw.fine_tuned_model === "string" && raw.fine_tuned_model ? raw.fine_tuned_model : null,
    trainedTokens: finite(raw.trained_tokens),
    estimatedFinish: finite(raw.estimated_finish),
    createdAt: finite(raw.created_at),
    finishedAt: finite(raw.finished_at),
    resultFiles: Array.isArray(raw.result_files) ? raw.result_files.filter((f): f is string => typeof f === "string") : [],
    error: hasError
      ? {
          code: typeof err!.code === "string" && err!.code ? err!.code : "training_failed",
          message: typeof err!.message === "string" && err!.message ? err!.message : "The node failed to train the model.",
          param: typeof err!.param === "string" ? err!.param : null,
        }
      : null,
    metadata: raw.metadata && typeof raw.metadata === "object" ? (raw.metadata as Record<string, unknown>) : null,
  };
}

export function toEvent(raw: Record<string, unknown>): NodeEvent {
  if (typeof raw.id !== "string") throw new UpstreamFailure("protocol", "the node answered an event without an id", 502);
  const level = raw.level === "warn" || raw.level === "error" ? raw.level : "info";
  return {
    id: raw.id,
    createdAt: finite(raw.created_at) ?? Math.floor(Date.now() / 1000),
    level,
    message: typeof raw.message === "string" ? raw.message : "",
    type: raw.type === "metrics" ? "metrics" : "message",
    data: raw.data ?? null,
  };
}

export function toCheckpoint(raw: Record<string, unknown>): NodeCheckpoint {
  const model = raw.fine_tuned_model_checkpoint;
  const step = finite(raw.step_number);
  if (typeof raw.id !== "string" || typeof model !== "string" || step === null) {
    throw new UpstreamFailure("protocol", "the node answered something that is not a fine-tuning checkpoint", 502);
  }
  return {
    id: raw.id,
    createdAt: finite(raw.created_at) ?? Math.floor(Date.now() / 1000),
    model,
    step,
    metrics: raw.metrics && typeof raw.metrics === "object" ? (raw.metrics as Record<string, unknown>) : {},
  };
}

export function page<T>(raw: Record<string, unknown>, map: (item: Record<string, unknown>) => T): NodePage<T> {
  if (!Array.isArray(raw.data)) throw new UpstreamFailure("protocol", "the node answered a list without data", 502);
  return { data: raw.data.map((d) => map((d ?? {}) as Record<string, unknown>)), hasMore: raw.has_more === true };
}
