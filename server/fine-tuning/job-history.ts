// A job's events and checkpoints, newest first as OpenAI lists them: `after` is the last id of the
// previous page, and the next page holds what is older than it. Read through the job, so another
// workspace's job is a 404 here too.
import type { CallContext } from "../identity/principal";
import { db } from "../infra/db/client";
import { errors } from "../kernel/errors";
import { toCheckpointObject, toEventObject } from "./job-object";
import { findJob } from "./manage-jobs";
import type { FineTuningCheckpointObject, FineTuningEventObject, FineTuningPaged, Page } from "./schema";

function pageOf<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const data = rows.slice(0, limit);
  return { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > limit };
}

const unknownCursor = (id: string) => errors.invalidRequest(`No item of this job has the id '${id}'.`, "after", "invalid_value");

export async function listEvents(ctx: CallContext, q: FineTuningPaged): Promise<Page<FineTuningEventObject>> {
  const job = await findJob(ctx.principal.workspaceId, q.fine_tuning_job_id);
  let before: bigint | undefined;
  if (q.after) {
    const after = await db.fineTuningEvent.findFirst({ where: { id: q.after, jobId: job.id }, select: { seq: true } });
    if (!after) throw unknownCursor(q.after);
    before = after.seq;
  }
  const rows = await db.fineTuningEvent.findMany({
    where: { jobId: job.id, ...(before !== undefined && { seq: { lt: before } }) },
    orderBy: { seq: "desc" },
    take: q.limit + 1,
  });
  return pageOf(rows.map(toEventObject), q.limit);
}

export async function listCheckpoints(ctx: CallContext, q: FineTuningPaged): Promise<Page<FineTuningCheckpointObject>> {
  const job = await findJob(ctx.principal.workspaceId, q.fine_tuning_job_id);
  let before: number | undefined;
  if (q.after) {
    const after = await db.fineTuningCheckpoint.findFirst({ where: { id: q.after, jobId: job.id }, select: { stepNumber: true } });
    if (!after) throw unknownCursor(q.after);
    before = after.stepNumber;
  }
  const rows = await db.fineTuningCheckpoint.findMany({
    where: { jobId: job.id, ...(before !== undefined && { stepNumber: { lt: before } }) },
    orderBy: { stepNumber: "desc" },
    take: q.limit + 1,
  });
  return pageOf(rows.map(toCheckpointObject), q.limit);
}
