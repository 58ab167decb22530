// Background work of a gateway server process.
import { startHealthChecks } from "./routing/nodes/health-check";
import { env } from "./infra/env";
import { sweepInterruptedResponses } from "./inference/responses/background";
import { blobStore } from "./infra/storage/blob-store";
import { startVideoSweeps, startVideoWorkers } from "./inference/videos/workers";

let started = false;

/** The instance's background work: once per gateway instance (in its process 0), not once per process. */
export function startBackground(): void {
  if (started || env.GATEWAY_PROCESS_INDEX !== 0) return;
  started = true;
  // If whoever reads our output goes away (a parent killed with -9), writes fail with EPIPE.
  // Unhandled, each failure is reported... by writing to the same dead stream, in a hot loop.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  startHealthChecks();
  // Video renders: inline workers (VIDEO_WORKERS at a time), and the timeout and retention sweeps.
  startVideoWorkers(env.VIDEO_WORKERS).catch((err) => console.error("video workers failed to start:", err));
  startVideoSweeps();
  setInterval(() => sweepInterruptedResponses().catch((err) => console.error("response sweep failed:", err)), 60_000).unref();
  // Image links expire after IMAGE_URL_TTL_SECONDS; the images behind them go soon after.
  setInterval(
    () => blobStore().deleteOlderThan("images", env.IMAGE_URL_TTL_SECONDS * 1000).catch((err) => console.error("image sweep failed:", err)),
    10 * 60_000,
  ).unref();
}
