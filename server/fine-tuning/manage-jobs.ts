// Reading, listing, cancelling, pausing and resuming fine-tuning jobs, always within the caller's
// workspace: another workspace's job id is answered exactly like an unknown one (404). A job
// already on a node is cancelled, paused or resumed there (node-client.ts); one not yet on a node
// is cancelled here at once.
import type { Prisma } from "../generated/prisma/client";
import type { CallContext } from "../identity/principal";
import { db } from "../infra/db/client";
import { errors, GatewayError } from "../kernel/errors";
import { nodeFineTuning, nodeIsDown, type NodeFineTuning as NodeClient, type NodeJob } from "./node-client";
import { finishJob, jobEnded, TERMINAL_STATUSES } from "./job-outcome";
import { toJobObject, type JobRow } from "./job-object";
import type { FineTuningJobObject, FineTuningList, Page } from "./schema";

export async function findJob(workspaceId: string, id: string): Promise<JobRow> {
  const row = await db.fineTuningJob.findFirst({ where: { id, workspaceId } });
  if (!row) throw errors.notFound(`No fine-tuning job found with id '${id}'.`, "fine_tuning_job_not_found", "fine_tuning_job_id");
  return row;
}

export async function getJob(ctx: CallContext, id: string): Promise<FineTuningJobObject> {
  return toJobObject(await findJob(ctx.principal.workspaceId, id));
}

const METADATA_FILTER = /^metadata\[(.+)\]$/;

/** The `metadata[key]=value` filters of a list query: a job matches when it has every one of those pairs. */
function metadataFilter(q: FineTuningList): Prisma.FineTuningJobWhereInput {
  const pairs = Object.entries(q).flatMap(([k, v]) => {
    const key = METADATA_FILTER.exec(k)?.[1];
    return key !== undefined && typeof v === "string" ? [{ metadata: { path: [key], equals: v } }] : [];
  });
  return pairs.length ? { AND: pairs } : {};
}

export async function listJobs(ctx: CallContext, q: FineTuningList): Promise<Page<FineTuningJobObject>> {
  const workspaceId = ctx.principal.workspaceId;
  let cursor: Prisma.FineTuningJobWhereInput = {};
  if (q.after) {
    const after = await db.fineTuningJob.findFirst({ where: { id: q.after, workspaceId }, select: { createdAt: true, id: true } });
    if (!after) throw errors.invalidRequest(`No fine-tuning job found with id '${q.after}'.`, "after", "invalid_value");
    cursor = { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] };
  }
  const rows = await db.fineTuningJob.findMany({
    where: { workspaceId, ...cursor, ...metadataFilter(q) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit).map(toJobObject);
  return { object: "list", data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: rows.length > q.limit };
}

/** The node that runs the job, as the node client needs it. */
async function nodeOf(row: JobRow) {
  const node = row.nodeId ? await db.node.findUnique({ where: { id: row.nodeId } }) : null;
  if (!node || !row.nodeJobId) throw new GatewayError({ status: 409, code: "job_not_on_node", param: "fine_tuning_job_id", message: `Fine-tuning job '${row.id}' has not reached a node yet.` });
  return { client: nodeFineTuning(node), nodeJobId: row.nodeJobId };
}

/**
 * Cancels a job that has not ended. A job not yet on a node ends at once; one on a node is
 * cancelled there and ends with the tokens the node trained so far charged (the rest of the hold
 * given back). When the node cannot be reached the job ends all the same on what the gateway
 * last saw, and its worker cancels the node's job once it can (`cancelRequested`).
 */
export async function cancelJob(ctx: CallContext, id: string): Promise<FineTuningJobObject> {
  const row = await findJob(ctx.principal.workspaceId, id);
  const notCancellable = () =>
    new GatewayError({ status: 409, code: "job_not_cancellable", param: "fine_tuning_job_id", message: `Fine-tuning job '${id}' is ${row.status}; only a job that has not ended can be cancelled.` });
  if (jobEnded(row.status)) throw notCancellable();
  // Marked first: a worker that puts the job on a node from now on cancels it there.
  const marked = await db.fineTuningJob.updateManyAndReturn({ where: { id: row.id, status: { notIn: [...TERMINAL_STATUSES] } }, data: { cancelRequested: true } });
  const current = marked[0];
  if (!current) throw notCancellable();
  let trainedTokens: number | undefined;
  if (current.nodeJobId && current.nodeId) {
    try {
      const { client, nodeJobId } = await nodeOf(current);
      const onNode: NodeJob = await client.cancel(nodeJobId);
      // Ended on the node before the cancel reached it: the job's worker records that end.
      if (onNode.status === "succeeded" || onNode.status === "failed") {
        throw new GatewayError({ status: 409, code: "job_not_cancellable", param: "fine_tuning_job_id", message: `Fine-tuning job '${id}' has just ${onNode.status} on its node; it can no longer be cancelled.` });
      }
      trainedTokens = onNode.trainedTokens ?? undefined;
    } catch (err) {
      if (!nodeIsDown(err)) throw err;
    }
  }
  await finishJob(row.id, { status: "cancelled", ...(trainedTokens !== undefined && { trainedTokens }) });
  return toJobObject(await findJob(ctx.principal.workspaceId, id));
}

/**
 * Passes a pause or a resume to the job's node: only from `from` (else 409 `code`), and the job
 * takes the status the node answers with (the worker's mirror follows it from there).
 */
async function onNode(ctx: CallContext, id: string, move: { from: "running" | "paused"; code: string; verb: string; act: (client: NodeClient, nodeJobId: string) => Promise<NodeJob> }) {
  const row = await findJob(ctx.principal.workspaceId, id);
  if (row.status !== move.from || !row.nodeJobId) {
    throw new GatewayError({ status: 409, code: move.code, param: "fine_tuning_job_id", message: `Fine-tuning job '${id}' is ${row.status}; only a ${move.from} job can be ${move.verb}.` });
  }
  const { client, nodeJobId } = await nodeOf(row);
  const answered = await move.act(client, nodeJobId);
  const status = move.from === "running" ? "paused" : answered.status === "queued" ? "queued" : "running";
  await db.fineTuningJob.updateMany({ where: { id: row.id, status: move.from }, data: { status } });
  return toJobObject(await findJob(ctx.principal.workspaceId, id));
}

/** Pauses a running job on its node; 409 for a job that is not running. */
export const pauseJob = (ctx: CallContext, id: string): Promise<FineTuningJobObject> =>
  onNode(ctx, id, { from: "running", code: "job_not_pausable", verb: "paused", act: (client, nodeJobId) => client.pause(nodeJobId) });

/** Resumes a paused job on its node; 409 for a job that is not paused. */
export const resumeJob = (ctx: CallContext, id: string): Promise<FineTuningJobObject> =>
  onNode(ctx, id, { from: "paused", code: "job_not_resumable", verb: "resumed", act: (client, nodeJobId) => client.resume(nodeJobId) });
