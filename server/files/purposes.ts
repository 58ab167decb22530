// What a file is for, and how large a file of each purpose may be. Clients upload the six
// purposes OpenAI accepts; `batch_output` files (a batch's output and error files) and
// `fine-tune-results` files (a fine-tuning job's metrics CSV) are written by the gateway itself
// and are listed and downloaded like the others.
import { env } from "../infra/env";

export const UPLOAD_PURPOSES = ["assistants", "batch", "fine-tune", "vision", "user_data", "evals"] as const;
export type UploadPurpose = (typeof UPLOAD_PURPOSES)[number];

/** The purpose of the files the gateway writes for a batch. */
export const BATCH_OUTPUT = "batch_output";

/** The purpose of a fine-tuning job's result file (its metrics per step, as OpenAI's). */
export const FINE_TUNE_RESULTS = "fine-tune-results";

/** The purposes of the files the gateway writes: never uploaded, downloaded like any other. */
export const OUTPUT_PURPOSES = [BATCH_OUTPUT, FINE_TUNE_RESULTS] as const;

/** The sizes files are held to; the environment's by default, smaller ones injected by tests. */
export type FileLimits = {
  /** Largest file of a purpose without a limit of its own (bytes). */
  maxBytes: number;
  /** Limits of their own, by purpose (bytes). */
  byPurpose: Readonly<Record<string, number>>;
  /** Bytes of live files one workspace may hold in all; 0: no quota. */
  workspaceQuotaBytes: number;
};

export function fileLimits(): FileLimits {
  return {
    maxBytes: env.FILES_MAX_BYTES,
    byPurpose: { batch: env.FILES_MAX_BATCH_BYTES },
    workspaceQuotaBytes: env.FILES_WORKSPACE_QUOTA_BYTES,
  };
}

export const maxBytesFor = (limits: FileLimits, purpose: string): number => limits.byPurpose[purpose] ?? limits.maxBytes;

/** The most an upload form may carry: the largest limit of any purpose (the purpose's own is checked once it is known). */
export function largestUpload(limits: FileLimits = fileLimits()): number {
  return Math.max(limits.maxBytes, ...Object.values(limits.byPurpose));
}
