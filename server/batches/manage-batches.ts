// Reading and cancelling batches, always within the caller's workspace: another workspace's id
// is answered exactly like an unknown one (404).
import type { CallContext } from "../identity/principal";
import { db } from "../infra/db/client";
import { errors, GatewayError } from "../kernel/errors";
import { toBatchObject, type BatchRow } from "./batch-object";
import type { BatchList, BatchListPage, BatchObject } from "./schema";

export async function findBatch(workspaceId: string, id: string): Promise<BatchRow> {
  const row = await db.batch.findFirst({ where: { id, workspaceId } });
  if (!row) throw errors.notFound(`No batch found with id '${id}'.`, "batch_not_found", "batch_id");
  return row;
}

export async function getBatch(ctx: CallContext, id: string): Promise<BatchObject> {
  return toBatchObject(await findBatch(ctx.principal.workspaceId, id));
}

export async function listBatches(ctx: CallContext, q: BatchList): Promise<BatchListPage> {
  const workspaceId = ctx.principal.workspaceId;
  let cursor = {};
  if (q.after) {
    const after = await db.batch.findFirst({ where: { id: q.after, workspaceId }, select: { createdAt: true, id: true } });
    if (!after) throw errors.invalidRequest(`No batch found with id '${q.after}'.`, "after", "invalid_value");
    cursor = { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] };
  }
  const rows = await db.batch.findMany({ where: { workspaceId, ...cursor }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: q.limit + 1 });
  const page = rows.slice(0, q.limit).map(toBatchObject);
  return { object: "list", data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: rows.length > q.limit };
}

/**
 * Cancels a batch that has not ended: it becomes `cancelling` at once, its worker runs no further
 * line, and it ends `cancelled` with the lines already done in its output (and billed, as they
 * ran). Cancelling a batch already cancelling answers it as it is; an ended one is a 409.
 */
export async function cancelBatch(ctx: CallContext, id: string): Promise<BatchObject> {
  const row = await findBatch(ctx.principal.workspaceId, id);
  const updated = await db.batch.updateManyAndReturn({
    where: { id: row.id, status: { in: ["validating", "in_progress"] } },
    data: { status: "cancelling", cancellingAt: new Date() },
  });
  if (updated[0]) return toBatchObject(updated[0]);
  const now = await findBatch(ctx.principal.workspaceId, id);
  if (now.status === "cancelling") return toBatchObject(now);
  throw new GatewayError({ status: 409, code: "batch_not_cancellable", param: "batch_id", message: `Batch '${id}' is ${now.status}; only a validating or in-progress batch can be cancelled.` });
}
