// What the batch operations take and answer (OpenAI's batch API): a batch names a `batch` file of
// JSONL request lines, the endpoint they all call, and the 24-hour window it must finish in.
import { z } from "zod";
import { listPage, unixSeconds } from "../kernel/answer-schemas";

/** The endpoints a batch may call: POST operations of the contract that answer JSON. */
export const BATCH_ENDPOINTS = ["/v1/chat/completions", "/v1/responses", "/v1/embeddings", "/v1/messages", "/v1/moderations"] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

const metadata = z
  .record(z.string().max(64), z.string().max(512))
  .refine((m) => Object.keys(m).length <= 16, "at most 16 keys");

export const ZBatchCreate = z.strictObject({
  input_file_id: z.string().min(1),
  endpoint: z.enum(BATCH_ENDPOINTS, { error: `must be one of ${BATCH_ENDPOINTS.join(", ")}` }),
  completion_window: z.literal("24h", { error: "must be 24h" }),
  metadata: metadata.nullable().optional(),
  /** How long the output and error files are kept, from the batch's end (OpenAI's `output_expires_after`). */
  output_expires_after: z
    .strictObject({ anchor: z.literal("created_at"), seconds: z.number().int().min(3600).max(30 * 24 * 3600) })
    .optional(),
});
export type BatchCreate = z.infer<typeof ZBatchCreate>;

export const ZBatchId = z.object({ id: z.string().min(1) });

/** GET /v1/batches: newest first, cursor `after` = the last id of the previous page. */
export const ZBatchList = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().min(1).optional(),
});
export type BatchList = z.infer<typeof ZBatchList>;

export const BATCH_STATUSES = ["validating", "failed", "in_progress", "finalizing", "completed", "expired", "cancelling", "cancelled"] as const;

const at = unixSeconds.nullable();

export const ZBatchObject = z.strictObject({
  id: z.string().describe("Starts with `batch_`"),
  object: z.literal("batch"),
  endpoint: z.string(),
  input_file_id: z.string(),
  completion_window: z.string(),
  status: z.enum(BATCH_STATUSES),
  errors: z
    .strictObject({
      object: z.literal("list"),
      data: z.array(z.strictObject({ code: z.string(), message: z.string(), param: z.string().nullable(), line: z.number().int().nullable() })),
    })
    .nullable(),
  output_file_id: z.string().nullable(),
  error_file_id: z.string().nullable(),
  created_at: unixSeconds,
  in_progress_at: at,
  expires_at: at,
  finalizing_at: at,
  completed_at: at,
  failed_at: at,
  expired_at: at,
  cancelling_at: at,
  cancelled_at: at,
  request_counts: z.strictObject({ total: z.number().int(), completed: z.number().int(), failed: z.number().int() }),
  usage: z
    .strictObject({
      input_tokens: z.number().int(),
      output_tokens: z.number().int(),
      total_tokens: z.number().int(),
      input_tokens_details: z.strictObject({ cached_tokens: z.number().int() }),
      output_tokens_details: z.strictObject({ reasoning_tokens: z.number().int() }),
    })
    .nullable(),
  metadata: z.record(z.string(), z.string()).nullable(),
  /** What the batch's lines cost so far, in USD (exact decimal string): the gateway's own field. */
  cost: z.string().describe("USD charged for the lines run so far, a decimal string"),
});
export type BatchObject = z.infer<typeof ZBatchObject>;

export const ZBatchListPage = listPage(ZBatchObject);
export type BatchListPage = z.infer<typeof ZBatchListPage>;
