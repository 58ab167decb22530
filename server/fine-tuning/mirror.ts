// Following a job that a node trains, until it ends: about every FINE_TUNE_POLL_INTERVAL_MS the
// node's job is read and its status, trained tokens and estimated finish copied onto the gateway's
// job, with its new events and checkpoints; a cancel asked of the gateway is passed on to the node.
// A node that cannot be reached (restarting) is waited for, up to FINE_TUNE_NODE_DOWN_SECONDS.
// When the node's job ends, the gateway's ends the same way: succeeded (result files copied, the
// tuned model and its checkpoints registered for the workspace, training charged), failed (free)
// or cancelled (the tokens trained so far charged).
import { setTimeout as sleep } from "node:timers/promises";
import { db } from "../infra/db/client";
import { env } from "../infra/env";
import { registerTunedModels } from "../routing/catalog/tuned-models";
import { finishJob, TERMINAL_STATUSES } from "./job-outcome";
import type { JobRow } from "./job-object";
import { nodeIsDown, nodeNotFound, type NodeFineTuning, type NodeJob } from "./node-client";
import { nodeJobEnded } from "./node-shapes";
import { historyMirror, modelOfCheckpoint } from "./mirror-history";
import { copyResultFiles } from "./result-files";

/** This worker no longer holds the job (another attempt claimed it, or it ended elsewhere): it stops, changing nothing. */
export class Superseded extends Error {}

/** The job was ended with a failure of the gateway's making (the node gone too long). */
export class NodeGone extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/** The gateway status a node status shows as while the job runs. */
function liveStatus(status: NodeJob["status"]): "queued" | "running" | "paused" {
  if (status === "running" || status === "paused") return status;
  return "queued";
}

export type Placed = JobRow & { nodeId: string; nodeJobId: string };

type MirrorInput = {
  job: Placed;
  client: NodeFineTuning;
  /** The gateway's name of the tuned model. */
  gatewayModel: string;
  signal: AbortSignal;
};

/**
 * Keeps the gateway's job level with the node's until it ends. Returns once the job ended (here
 * or elsewhere); throws Superseded when another attempt holds it, NodeGone when the node was
 * unreachable too long, or the error of a call that failed otherwise (the attempt is retried).
 */
export async function mirrorJob({ job, client, gatewayModel, signal }: MirrorInput): Promise<void> {
  let nodeModel: string | null = job.nodeFineTunedModel;
  const renames = () => [
    { from: job.nodeJobId, to: job.id },
    { from: job.nodeTrainingFileId ?? "", to: job.trainingFileId },
    { from: job.nodeValidationFileId ?? "", to: job.validationFileId ?? "" },
    ...(nodeModel ? [{ from: nodeModel, to: gatewayModel }] : []),
  ];
  const history = await historyMirror(job, client, { gatewayModel, renames });
  const mine = { id: job.id, attempts: job.attempts, status: { notIn: [...TERMINAL_STATUSES] } };
  let downSince: number | null = null;
  let cancelSent = false;
  let started = job.startedAt !== null;

  for (;;) {
    signal.throwIfAborted();
    const row = await db.fineTuningJob.findUnique({ where: { id: job.id }, select: { status: true, attempts: true, cancelRequested: true } });
    if (!row) return;
    if ((TERMINAL_STATUSES as readonly string[]).includes(row.status)) {
      // Cancelled by the API while the node could not be told: it is told now.
      if (row.status === "cancelled" && !cancelSent) await cancelOnNode(client, job.nodeJobId, signal);
      return;
    }
    if (row.attempts !== job.attempts) throw new Superseded();

    let onNode: NodeJob;
    try {
      if (row.cancelRequested && !cancelSent) {
        onNode = await client.cancel(job.nodeJobId, signal);
        cancelSent = true;
      } else {
        onNode = await client.getJob(job.nodeJobId, signal);
      }
      if (onNode.fineTunedModel) nodeModel = onNode.fineTunedModel;
      await history.sync(signal);
      downSince = null;
    } catch (err) {
      if (signal.aborted) throw err;
      // A node that restarts answers nothing for a while, or a 404 until it has read its jobs back.
      if (!nodeIsDown(err) && !nodeNotFound(err)) throw err;
      downSince ??= Date.now();
      if (Date.now() - downSince > env.FINE_TUNE_NODE_DOWN_SECONDS * 1000) {
        throw new NodeGone(
          nodeNotFound(err) ? "node_job_lost" : "node_unavailable",
          nodeNotFound(err)
            ? "The node training this job no longer knows it."
            : `The node training this job could not be reached for ${env.FINE_TUNE_NODE_DOWN_SECONDS} seconds.`,
        );
      }
      await sleep(env.FINE_TUNE_POLL_INTERVAL_MS, undefined, { signal });
      continue;
    }
    if (onNode.status === "succeeded") {
      await succeed(job, client, onNode, gatewayModel, history, signal);
      return;
    }
    if (onNode.status === "failed") {
      await finishJob(job.id, { status: "failed", error: onNode.error ?? { code: "training_failed", message: "The node failed to train the model.", param: null } });
      return;
    }
    if (onNode.status === "cancelled") {
      await finishJob(job.id, { status: "cancelled", ...(onNode.trainedTokens !== null && { trainedTokens: onNode.trainedTokens }) });
      return;
    }

    const status = liveStatus(onNode.status);
    const updated = await db.fineTuningJob.updateMany({
      where: mine,
      data: {
        status,
        ...(onNode.trainedTokens !== null && { trainedTokens: onNode.trainedTokens }),
        estimatedFinish: onNode.estimatedFinish !== null ? new Date(onNode.estimatedFinish * 1000) : null,
        ...(status === "running" && !started && { startedAt: new Date() }),
      },
    });
    if (!updated.count) continue; // ended or taken meanwhile: the next turn says which
    if (status === "running") started = true;
    await sleep(env.FINE_TUNE_POLL_INTERVAL_MS, undefined, { signal });
  }
}

/**
 * Cancels the node's job of a job the gateway already ended, waiting out a restarting node up to
 * FINE_TUNE_NODE_DOWN_SECONDS; a job the node already ended (or no longer has) is left as it is.
 */
export async function cancelOnNode(client: NodeFineTuning, nodeJobId: string, signal: AbortSignal): Promise<void> {
  const since = Date.now();
  for (;;) {
    try {
      const onNode = await client.getJob(nodeJobId, signal);
      if (nodeJobEnded(onNode.status)) return;
      await client.cancel(nodeJobId, signal);
      return;
    } catch (err) {
      if (signal.aborted || !nodeIsDown(err) || Date.now() - since > env.FINE_TUNE_NODE_DOWN_SECONDS * 1000) return;
      await sleep(env.FINE_TUNE_POLL_INTERVAL_MS, undefined, { signal });
    }
  }
}

/** The node's job succeeded: its last events and checkpoints, its result files, its models, then the end and the charge. */
async function succeed(job: Placed, client: NodeFineTuning, onNode: NodeJob, gatewayModel: string, history: Awaited<ReturnType<typeof historyMirror>>, signal: AbortSignal) {
  await history.sync(signal);
  const checkpoints = await history.checkpoints();
  const nodeModel = onNode.fineTunedModel ?? (checkpoints.length ? modelOfCheckpoint(checkpoints[checkpoints.length - 1]!.upstreamModel) : null);
  if (!nodeModel) {
    await finishJob(job.id, { status: "failed", error: { code: "training_failed", message: "The node reported success without a fine-tuned model.", param: null } });
    return;
  }
  const resultFiles = await copyResultFiles(job, client, onNode.resultFiles, signal);
  await registerTunedModels({
    workspaceId: job.workspaceId,
    baseModelId: job.model,
    jobId: job.id,
    nodeId: job.nodeId,
    models: [{ id: gatewayModel, upstreamModel: nodeModel }, ...checkpoints],
  });
  await finishJob(job.id, {
    status: "succeeded",
    ...(onNode.trainedTokens !== null && { trainedTokens: onNode.trainedTokens }),
    fineTunedModel: gatewayModel,
    nodeFineTunedModel: nodeModel,
    resultFiles,
  });
}
