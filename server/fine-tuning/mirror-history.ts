// A node job's events and checkpoints copied onto the gateway's job as they appear. The node lists
// both newest first; each read pages back until it meets one already copied, then writes the new
// ones oldest first, so the job's own order (seq) is the order they happened in. A row is unique
// per job and node event id (events) or step (checkpoints): a worker that resumes after a crash,
// or two that overlap for a moment, never write one twice.
import type { Prisma } from "../generated/prisma/client";
import { db } from "../infra/db/client";
import { newId } from "../kernel/ids";
import { checkpointModelName } from "../routing/catalog/tuned-models";
import type { NodeCheckpoint, NodeEvent, NodeFineTuning, NodePage } from "./node-client";
import { jobEnded } from "./job-outcome";

/** Pages read in one pass at most (100 items each): a job's whole history is read over a few passes. */
const MAX_PAGES = 20;

/**
 * Node messages about what the gateway writes an event of its own for (the job created, its files
 * validated, its end): not copied, so the job tells each once.
 */
const GATEWAY_TOLD = /^(Created fine-tuning job|Validating training file|Files validated|The job has successfully completed|The job has been cancelled|Training failed|Fine-tuning job (cancelled|failed)|Job (cancelled|failed|succeeded))/i;

type Renames = { from: string; to: string }[];

/** A `:ckpt-step-N` name's model. */
export const modelOfCheckpoint = (name: string) => name.replace(/:ckpt-step-\d+$/, "");

/** What a node message names in the node's terms (its job id, its files, its model) put in the gateway's. */
function renamed(message: string, renames: Renames): string {
  let out = message;
  for (const { from, to } of renames) if (from) out = out.split(from).join(to);
  return out;
}

/** The new items of a newest-first list: pages back until one of `seen` (or the list's start). */
async function newerThanSeen<T extends { id: string }>(list: (after?: string) => Promise<NodePage<T>>, seen: Set<string>): Promise<T[]> {
  const fresh: T[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await list(after);
    for (const item of page.data) {
      if (seen.has(item.id)) return fresh.reverse();
      fresh.push(item);
    }
    if (!page.hasMore || !page.data.length) break;
    after = page.data[page.data.length - 1]!.id;
  }
  return fresh.reverse();
}

export type HistoryMirror = {
  /** Copies the node job's new events and checkpoints. */
  sync(signal?: AbortSignal): Promise<void>;
  /** The checkpoints copied so far: the gateway's name, the node's, and the step. */
  checkpoints(): Promise<{ id: string; upstreamModel: string; checkpointStep: number }[]>;
};

export async function historyMirror(
  job: { id: string; nodeJobId: string },
  client: NodeFineTuning,
  names: { gatewayModel: string; renames: () => Renames },
): Promise<HistoryMirror> {
  const [events, checkpoints] = await Promise.all([
    db.fineTuningEvent.findMany({ where: { jobId: job.id, nodeEventId: { not: null } }, select: { nodeEventId: true } }),
    db.fineTuningCheckpoint.findMany({ where: { jobId: job.id }, select: { id: true, stepNumber: true, nodeModel: true } }),
  ]);
  // The node's name of the tuned model, as its checkpoints show it (before the job says it).
  let nodeModel: string | null = checkpoints[0] ? modelOfCheckpoint(checkpoints[0].nodeModel) : null;
  const seenEvents = new Set(events.map((e) => e.nodeEventId!));
  // Checkpoints are known by step (the node's ids are not kept); `seen` holds node ids met in this process.
  const steps = new Set(checkpoints.map((c) => c.stepNumber));
  const seenCheckpoints = new Set<string>();

  async function syncEvents(signal?: AbortSignal): Promise<void> {
    const fresh = await newerThanSeen<NodeEvent>((after) => client.listEvents(job.nodeJobId, after, signal), seenEvents);
    const kept = fresh.filter((e) => !GATEWAY_TOLD.test(e.message));
    if (kept.length) {
      const renames = [...names.renames(), ...(nodeModel ? [{ from: nodeModel, to: names.gatewayModel }] : [])];
      await db.$transaction(async (tx) => {
        // Only into a job that has not ended: its end's event (job-outcome.ts, written in the
        // transaction that ends it) stays its newest. The row's lock orders the two.
        const [row] = await tx.$queryRaw<{ status: string }[]>`SELECT "status"::text AS status FROM "FineTuningJob" WHERE "id" = ${job.id} FOR SHARE`;
        if (!row || jobEnded(row.status)) return;
        await tx.fineTuningEvent.createMany({
          data: kept.map((e) => ({
            id: newId("ftevent"),
            jobId: job.id,
            level: e.level,
            message: renamed(e.message, renames),
            type: e.type,
            data: (e.data ?? undefined) as Prisma.InputJsonValue | undefined,
            nodeEventId: e.id,
            createdAt: new Date(e.createdAt * 1000),
          })),
          skipDuplicates: true,
        });
      });
    }
    for (const e of fresh) seenEvents.add(e.id);
  }

  async function syncCheckpoints(signal?: AbortSignal): Promise<void> {
    const fresh = await newerThanSeen<NodeCheckpoint>((after) => client.listCheckpoints(job.nodeJobId, after, signal), seenCheckpoints);
    const added = fresh.filter((c) => !steps.has(c.step));
    if (added.length) {
      await db.fineTuningCheckpoint.createMany({
        data: added.map((c) => ({
          id: newId("ftckpt"),
          jobId: job.id,
          stepNumber: c.step,
          fineTunedModelCheckpoint: checkpointModelName(names.gatewayModel, c.step),
          nodeModel: c.model,
          metrics: c.metrics as Prisma.InputJsonValue,
          createdAt: new Date(c.createdAt * 1000),
        })),
        skipDuplicates: true,
      });
    }
    for (const c of fresh) {
      nodeModel ??= modelOfCheckpoint(c.model);
      seenCheckpoints.add(c.id);
      steps.add(c.step);
    }
  }

  return {
    async sync(signal) {
      // Checkpoints first: they name the node's model, which the events then say in the gateway's terms.
      await syncCheckpoints(signal);
      await syncEvents(signal);
    },
    async checkpoints() {
      const rows = await db.fineTuningCheckpoint.findMany({ where: { jobId: job.id }, orderBy: { stepNumber: "asc" } });
      return rows.map((r) => ({ id: r.fineTunedModelCheckpoint, upstreamModel: r.nodeModel, checkpointStep: r.stepNumber }));
    },
  };
}
