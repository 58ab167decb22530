// A batch row as the API's batch object.
import type { Prisma } from "../generated/prisma/client";
import { formatMoney } from "../kernel/money";
import type { BatchObject } from "./schema";

export type BatchRow = Prisma.BatchGetPayload<object>;

const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

type Usage = { input_tokens: number; output_tokens: number; cached_tokens: number; reasoning_tokens: number };

export function toBatchObject(row: BatchRow): BatchObject {
  const errors = row.errors as NonNullable<BatchObject["errors"]>["data"] | null;
  const usage = row.usage as Usage | null;
  return {
    id: row.id,
    object: "batch",
    endpoint: row.endpoint,
    input_file_id: row.inputFileId,
    completion_window: row.completionWindow,
    status: row.status,
    errors: errors ? { object: "list", data: errors } : null,
    output_file_id: row.outputFileId,
    error_file_id: row.errorFileId,
    created_at: seconds(row.createdAt)!,
    in_progress_at: seconds(row.inProgressAt),
    expires_at: seconds(row.expiresAt),
    finalizing_at: seconds(row.finalizingAt),
    completed_at: seconds(row.completedAt),
    failed_at: seconds(row.failedAt),
    expired_at: seconds(row.expiredAt),
    cancelling_at: seconds(row.cancellingAt),
    cancelled_at: seconds(row.cancelledAt),
    request_counts: { total: row.total, completed: row.completed, failed: row.failed },
    usage: usage
      ? {
          input_tokens: usage.input_tokens,
          output_tokens: usage.output_tokens,
          total_tokens: usage.input_tokens + usage.output_tokens,
          input_tokens_details: { cached_tokens: usage.cached_tokens },
          output_tokens_details: { reasoning_tokens: usage.reasoning_tokens },
        }
      : null,
    metadata: (row.metadata as Record<string, string> | null) ?? null,
    cost: formatMoney(row.cost),
  };
}
