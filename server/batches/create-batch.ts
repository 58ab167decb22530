// POST /v1/batches: the batch is recorded `validating` and its run job enqueued in one
// transaction (pg-boss writes through Prisma's), so a batch is never left without a job.
// Validation of the lines and the run happen in a batch worker (run-batch.ts).
import { findFile } from "../files/find-file";
import type { CallContext } from "../identity/principal";
import { db } from "../infra/db/client";
import { Channel, notify } from "../infra/db/notify";
import { env } from "../infra/env";
import { inTransaction, jobQueue, QUEUES } from "../infra/jobs/boss";
import { errors } from "../kernel/errors";
import { randomBase62 } from "../kernel/ids";
import { storedCaller } from "./batch-caller";
import { toBatchObject } from "./batch-object";
import type { BatchCreate, BatchObject } from "./schema";

/** Every batch must finish within its window: 24 hours, the only one offered. */
const WINDOW_MS = 24 * 3600 * 1000;

/** What a batch run job carries. */
export type BatchJobData = { batchId: string };

/** How often a batch job is retried after its worker died or failed; each attempt resumes where the last stopped. */
export const BATCH_RETRY_LIMIT = 20;

export async function createBatch(ctx: CallContext, req: BatchCreate): Promise<BatchObject> {
  const { workspaceId } = ctx.principal;
  const caller = storedCaller(ctx.principal);
  const file = await findFile(workspaceId, req.input_file_id, "input_file_id");
  if (file.purpose !== "batch") {
    throw errors.invalidRequest(`File '${file.id}' has purpose '${file.purpose}'; a batch reads a file uploaded with purpose 'batch'.`, "input_file_id", "invalid_file_purpose");
  }
  const boss = await jobQueue();
  const now = new Date();
  const row = await db.$transaction(async (tx) => {
    const created = await tx.batch.create({
      data: {
        id: `batch_${randomBase62(24)}`,
        workspaceId,
        apiKeyId: ctx.principal.keyId,
        caller,
        endpoint: req.endpoint,
        inputFileId: file.id,
        completionWindow: req.completion_window,
        outputExpiresAfter: req.output_expires_after?.seconds ?? null,
        metadata: req.metadata ?? {},
        createdAt: now,
        expiresAt: new Date(now.getTime() + WINDOW_MS),
      },
    });
    const data: BatchJobData = { batchId: created.id };
    await boss.send(QUEUES.batchRun, data, {
      db: inTransaction(tx),
      retryLimit: BATCH_RETRY_LIMIT,
      retryDelay: 2,
      retryBackoff: true,
      heartbeatSeconds: env.BATCH_HEARTBEAT_SECONDS,
      // pg-boss caps an attempt at 24 h, the batch's own window.
      expireInSeconds: 24 * 3600,
    });
    // Delivered at commit: instances with no batch process running start one (demand.ts).
    await notify(tx, Channel.batchQueued, created.id);
    return created;
  });
  return toBatchObject(row);
}
