// Background work of a gateway server process.
import { setPriority } from "node:os";
import { startDeliveryWorkers } from "./alerts/deliver";
import { batchLines } from "./batch-lines";
import { startBatchWorkers, stopBatchRuns } from "./batches/workers";
import { deleteExpiredFiles } from "./files/expire-files";
import { startCacheSweep } from "./response-cache/clear";
import { subscribeLedgerAlerts } from "./alerts/ledger-alerts";
import { startHealthChecks } from "./routing/nodes/health-check";
import { env } from "./infra/env";
import { stopJobQueue } from "./infra/jobs/boss";
import { stopBackgroundResponses, sweepInterruptedResponses, SWEEP_INTERVAL_MS } from "./inference/responses/background";
import { blobStore } from "./infra/storage/blob-store";
import { startVideoSweeps, startVideoWorkers, stopVideoSweeps } from "./inference/videos/workers";
import { startFineTuneSweeps, startFineTuneWorkers, stopFineTuneSweeps } from "./fine-tuning/workers";
import { logFor } from "./infra/telemetry/log";
import { replaySpools, spoolDir } from "./ledger/spool-replay";
import { UsageSpool } from "./ledger/usage-spool";
import { usageWriter } from "./ledger/usage-writer";
import { startLogMaintenance, useRequestLogSpool } from "./request-log/start";
import { sweepIdleSessions } from "./mcp/endpoint/sessions";

const log = logFor("background");

let started = false;
const timers: NodeJS.Timeout[] = [];
let stopHealthChecks: (() => void) | undefined;
let replayTimer: NodeJS.Timeout | undefined;

/** How often every process looks for the usage spools of processes that stopped (ledger/usage-spool.ts). */
const SPOOL_REPLAY_MS = 10_000;

/**
 * In every process: turns the usage spool on (unless USAGE_SPOOL_DIR=off), and commits the usage
 * that processes which stopped without committing it left in their spools (a killed worker, a
 * crashed instance on this host); now, and every 10 s.
 */
export async function startSpoolReplay(): Promise<void> {
  // Every process commits usage and refuses calls: each tells the alerts (balance.low, spend.threshold, budget.exceeded).
  subscribeLedgerAlerts();
  if (replayTimer) return;
  let dir: string | null;
  try {
    dir = await spoolDir();
  } catch (err) {
    log.error({ err }, "usage spool: no database id; answers wait for their usage commit");
    return;
  }
  if (!dir) return;
  const spoolIn = dir;
  usageWriter().useSpool(new UsageSpool(spoolIn));
  const replayLog = useRequestLogSpool(spoolIn);
  const replay = () =>
    Promise.all([
      replaySpools(spoolIn).catch((err: unknown) => void log.error({ err }, "usage spool replay failed")),
      replayLog().catch((err: unknown) => void log.error({ err }, "request log spool replay failed")),
    ]);
  replayTimer = setInterval(() => void replay(), SPOOL_REPLAY_MS).unref();
  await replay();
}

/**
 * The work of an instance's batch process (server/transport/node/gateway-server.ts): BATCH_WORKERS
 * batches at a time, at the CPU priority BATCH_NICE, which the operating system's scheduler gives
 * way to the serving processes with.
 */
export async function startBatchProcess(): Promise<void> {
  try {
    setPriority(env.BATCH_NICE);
  } catch (err) {
    log.warn({ err }, `could not lower the batch process's priority to ${env.BATCH_NICE}`);
  }
  await startBatchWorkers(env.BATCH_WORKERS, batchLines);
}

/** The instance's background work: once per gateway instance (in its process 0), not once per process. */
export function startBackground(): void {
  if (started || env.GATEWAY_PROCESS_INDEX !== 0) return;
  started = true;
  // If whoever reads our output goes away (a parent killed with -9), writes fail with EPIPE.
  // Unhandled, each failure is reported... by writing to the same dead stream, in a hot loop.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  stopHealthChecks = startHealthChecks();
  timers.push(startLogMaintenance());
  // Expired response cache entries, deleted in chunks every minute (they are never answered meanwhile).
  timers.push(startCacheSweep());
  // Video renders: inline workers (VIDEO_WORKERS at a time), and the timeout and retention sweeps.
  startVideoWorkers(env.VIDEO_WORKERS).catch((err) => log.error({ err }, "video workers failed to start"));
  startVideoSweeps();
  // Fine-tuning jobs: inline workers (FINE_TUNE_WORKERS at a time) following their nodes' jobs, and the orphaned-job sweep.
  startFineTuneWorkers(env.FINE_TUNE_WORKERS).catch((err) => log.error({ err }, "fine-tuning workers failed to start"));
  startFineTuneSweeps();
  // Files past their `expires_after`: answered 404 at once, their bytes and rows deleted every minute.
  timers.push(setInterval(() => void deleteExpiredFiles().catch((err) => log.error({ err }, "file sweep failed")), 60_000).unref());
  // Batches run here, paced by the instance's live calls (server/batches/live-pace.ts), unless
  // the gateway server runs them in a process of their own at a lower CPU priority
  // (BATCH_PROCESS=true: startBatchProcess, started by the first process).
  if (process.env.GATEWAY_BACKGROUND_OWNER !== "gateway-server" || env.BATCH_PROCESS === "false") {
    startBatchWorkers(env.BATCH_WORKERS, batchLines).catch((err) => log.error({ err }, "batch workers failed to start"));
  }
  // Webhook deliveries (server/alerts/deliver.ts): sent and retried by the instance's process 0.
  startDeliveryWorkers().catch((err) => log.error({ err }, "webhook delivery workers failed to start"));
  // Background responses a dead process left open: looked for now (a restart after a crash
  // settles them at once) and then every SWEEP_INTERVAL_MS.
  const sweep = () => void sweepInterruptedResponses().catch((err) => log.error({ err }, "response sweep failed"));
  sweep();
  timers.push(setInterval(sweep, SWEEP_INTERVAL_MS).unref());
  // /mcp sessions unused for MCP_SESSION_IDLE_SECONDS (already refused): their rows go every 10 minutes.
  timers.push(setInterval(() => void sweepIdleSessions().catch((err) => log.error({ err }, "MCP session sweep failed")), 10 * 60_000).unref());
  // Image links expire after IMAGE_URL_TTL_SECONDS; the images behind them go soon after.
  timers.push(
    setInterval(
      () => blobStore().deleteOlderThan("images", env.IMAGE_URL_TTL_SECONDS * 1000).catch((err) => log.error({ err }, "image sweep failed")),
      10 * 60_000,
    ).unref(),
  );
}

/**
 * Graceful shutdown of this process's background work (any process: each may run background
 * responses and send video jobs). No new work starts; running background responses and video
 * renders get until `deadline` (ms since the epoch) to finish. Renders still running then are
 * failed in the queue and retried by another worker; background responses are failed, uncharged.
 */
export async function stopBackground(deadline: number): Promise<void> {
  stopHealthChecks?.();
  clearInterval(replayTimer);
  for (const timer of timers.splice(0)) clearInterval(timer);
  stopVideoSweeps();
  stopFineTuneSweeps();
  stopBatchRuns();
  await Promise.all([
    stopJobQueue(Math.max(0, deadline - Date.now())).catch((err) => log.error({ err }, "job queue did not stop cleanly")),
    stopBackgroundResponses(deadline),
  ]);
}
