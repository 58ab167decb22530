// A succeeded job's result files (the node's metrics CSV: step, train loss, validation loss...)
// copied from the node into the workspace's files, purpose `fine-tune-results`, so the job's
// `result_files` name files the workspace can download through the gateway. A worker that resumes
// after copying them finds its own copies again (one per node file) rather than writing more.
import { FINE_TUNE_RESULTS } from "../files/purposes";
import { storeFile } from "../files/store-file";
import { db } from "../infra/db/client";
import { GatewayError } from "../kernel/errors";
import { logFor } from "../infra/telemetry/log";
import { addJobEvent } from "./job-outcome";
import type { NodeFineTuning } from "./node-client";

const log = logFor("fine-tuning");

type ResultJob = { id: string; workspaceId: string; apiKeyId: string | null };

/** The name of the gateway's copy of a node's result file: the job's id, and the position of the file. */
const copyName = (jobId: string, index: number) => `${jobId}${index ? `-${index + 1}` : ""}-step_metrics.csv`;

/**
 * Copies each of the node's result files into the workspace's files; returns the gateway's file
 * ids. A file the workspace's storage cannot take is left out (the job still succeeds) and said
 * in a warning event.
 */
export async function copyResultFiles(job: ResultJob, client: NodeFineTuning, nodeFileIds: string[], signal?: AbortSignal): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, nodeFileId] of nodeFileIds.entries()) {
    const filename = copyName(job.id, index);
    const existing = await db.storedFile.findFirst({ where: { workspaceId: job.workspaceId, purpose: FINE_TUNE_RESULTS, filename }, select: { id: true } });
    if (existing) {
      ids.push(existing.id);
      continue;
    }
    const { bytes } = await client.fileContent(nodeFileId, signal);
    try {
      const row = await storeFile({ workspaceId: job.workspaceId, apiKeyId: job.apiKeyId }, { filename, purpose: FINE_TUNE_RESULTS, data: bytes, contentType: "text/csv" });
      ids.push(row.id);
    } catch (err) {
      if (!(err instanceof GatewayError && err.status === 413)) throw err;
      log.warn({ job: job.id, code: err.code }, "fine-tuning: a result file was not kept");
      await addJobEvent(job.id, { level: "warn", message: `The result file could not be kept: ${err.message}` });
    }
  }
  return ids;
}
