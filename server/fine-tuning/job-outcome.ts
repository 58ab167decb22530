// How a fine-tuning job ends, and how anything it goes through is written down as an event.
// Ending is one guarded status change (only a job not yet ended changes), made in the same
// transaction as its money (ledger/fine-tune-money.ts): whichever path ends a job first (the
// worker, the cancel route, a sweep) ends it, once, and the others change nothing.
import type { Prisma } from "../generated/prisma/client";
import { db, type Tx } from "../infra/db/client";
import { newId } from "../kernel/ids";
import { formatMoney } from "../kernel/money";
import { chargeOf, settleFineTuneJob } from "../ledger/fine-tune-money";
import type { StoredMethod } from "./job-object";
import type { JobError } from "./schema";

export type EndedStatus = "succeeded" | "cancelled" | "failed";
export const TERMINAL_STATUSES = ["succeeded", "failed", "cancelled"] as const;

/** Whether a job in this status has ended (its money settled, its end's event written). */
export const jobEnded = (status: string) => (TERMINAL_STATUSES as readonly string[]).includes(status);

export type JobEnd = {
  status: EndedStatus;
  /** Tokens trained, all epochs (so far, for a cancelled job); absent: what the job last recorded. */
  trainedTokens?: number;
  error?: JobError;
  fineTunedModel?: string;
  nodeFineTunedModel?: string;
  resultFiles?: string[];
};

export type JobEventInput = {
  level?: "info" | "warn" | "error";
  message: string;
  type?: "message" | "metrics";
  data?: Record<string, unknown> | null;
  /** The node's id of a mirrored event: an event already mirrored is not written again. */
  nodeEventId?: string;
  /** When it happened (a mirrored event's own time); absent: now. */
  createdAt?: Date;
};

/** Writes an event of the job (in `tx` when given); a mirrored event already written is skipped. */
export async function addJobEvent(jobId: string, event: JobEventInput, tx: Tx = db): Promise<void> {
  await tx.fineTuningEvent.createMany({
    data: [
      {
        id: newId("ftevent"),
        jobId,
        level: event.level ?? "info",
        message: event.message,
        type: event.type ?? "message",
        data: (event.data ?? undefined) as Prisma.InputJsonValue | undefined,
        nodeEventId: event.nodeEventId ?? null,
        ...(event.createdAt && { createdAt: event.createdAt }),
      },
    ],
    skipDuplicates: true,
  });
}

const ENDED_MESSAGES: Record<EndedStatus, string> = {
  succeeded: "The job has successfully completed",
  cancelled: "Fine-tuning job cancelled",
  failed: "Fine-tuning job failed",
};

/** Epochs x one pass over the file: what a job that gave no count of its own trained. */
const plannedTokens = (row: { estimatedTokens: number; method: unknown }) => row.estimatedTokens * (row.method as StoredMethod).supervised.hyperparameters.n_epochs;

/**
 * Ends a job that has not ended yet, and settles its money in the same transaction: the hold
 * given back, and for a succeeded or cancelled job the tokens it trained charged at the price it
 * was created with. True when this call ended it; false when it had ended already.
 */
export async function finishJob(jobId: string, end: JobEnd): Promise<boolean> {
  const ended = await settleFineTuneJob(async (tx) => {
    const [row] = await tx.fineTuningJob.updateManyAndReturn({
      where: { id: jobId, status: { notIn: [...TERMINAL_STATUSES] } },
      data: {
        status: end.status,
        finishedAt: new Date(),
        cancelRequested: end.status === "cancelled" ? true : undefined,
        ...(end.trainedTokens !== undefined && { trainedTokens: end.trainedTokens }),
        ...(end.error && { error: end.error }),
        ...(end.fineTunedModel && { fineTunedModel: end.fineTunedModel }),
        ...(end.nodeFineTunedModel && { nodeFineTunedModel: end.nodeFineTunedModel }),
        ...(end.resultFiles && { resultFiles: end.resultFiles }),
      },
    });
    if (!row) return null;
    // A succeeded job without a count trained what it planned; a cancelled one what it recorded.
    const trainedTokens = row.trainedTokens ?? (end.status === "succeeded" ? plannedTokens(row) : 0);
    const job = { ...row, status: end.status, trainedTokens, reservedAmount: row.reservedAmount.toString(), pricePer1m: row.pricePer1m.toString() };
    await tx.fineTuningJob.update({ where: { id: jobId }, data: { cost: formatMoney(chargeOf(job)), trainedTokens } });
    const message = end.status === "failed" && end.error ? `${ENDED_MESSAGES.failed}: ${end.error.message}` : ENDED_MESSAGES[end.status];
    await addJobEvent(jobId, { level: end.status === "failed" ? "error" : "info", message }, tx);
    return job;
  });
  return ended !== null;
}
