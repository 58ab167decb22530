// npm run worker: a process that renders video jobs (VIDEO_WORKERS at a time, default 2), runs
// batches (BATCH_WORKERS at a time, default 1), drives fine-tuning jobs (FINE_TUNE_WORKERS, default 1) and sends
// webhook deliveries (two at a time, beside the gateway's own). Run as many as you like against one
// database; with the filesystem blob store they must share the gateway's DATA_DIR, with
// BLOB_STORE=s3 they can run anywhere.
import { disconnectDb, useDatabase } from "../server/infra/db/client";
import { currentHolder } from "../server/infra/db/data-dir";
import { stopListening } from "../server/infra/db/notify";
import { env } from "../server/infra/env";
import { stopJobQueue } from "../server/infra/jobs/boss";
import { logFor } from "../server/infra/telemetry/log";
import { WORKER_ID } from "../server/inference/videos/render-video";
import { startVideoSweeps, startVideoWorkers, stopVideoSweeps } from "../server/inference/videos/workers";
import { startDeliveryWorkers } from "../server/alerts/deliver";
import { batchLines } from "../server/batch-lines";
import { startBatchWorkers, stopBatchRuns } from "../server/batches/workers";
import { startFineTuneSweeps, startFineTuneWorkers, stopFineTuneSweeps } from "../server/fine-tuning/workers";

const url = env.DATABASE_URL ?? currentHolder()?.databaseUrl;
if (!url) {
  process.stderr.write("error: no database. Set DATABASE_URL, or start the gateway (npm start) on this DATA_DIR first.\n");
  process.exit(2);
}
useDatabase(url);

const log = logFor("worker");
const concurrency = env.VIDEO_WORKERS || 1;
let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info(`worker ${WORKER_ID}: ${signal}, finishing running renders (up to 10 s)`);
  stopVideoSweeps();
  stopFineTuneSweeps();
  // Running batches start no further line; their jobs fail this attempt and are resumed by another worker.
  stopBatchRuns();
  await stopJobQueue(10_000).catch((err) => log.error({ err }, "stopping the queue failed"));
  await stopListening().catch(() => undefined);
  await disconnectDb().catch(() => undefined);
  log.flush();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

await startVideoWorkers(concurrency);
await startBatchWorkers(env.BATCH_WORKERS, batchLines);
await startFineTuneWorkers(env.FINE_TUNE_WORKERS);
startVideoSweeps();
startFineTuneSweeps();
await startDeliveryWorkers();
log.info(`worker ${WORKER_ID} ready: renders up to ${concurrency} video job(s) at once, runs ${env.BATCH_WORKERS} batch(es) and ${env.FINE_TUNE_WORKERS} fine-tuning job(s) at once, and sends webhook deliveries`);
