// The request log's part in a gateway process: its spool (beside the usage spool, in the same
// folder), the replay of what stopped processes left in theirs, and the partitions' upkeep (made
// ahead, dropped past retention), now and every hour.
import { replaySpool } from "../infra/spool/replay";
import { Spool } from "../infra/spool/spool";
import { logFor } from "../infra/telemetry/log";
import type { RequestLogRow } from "./log-row";
import { commitLogRows, LOG_SPOOL_PREFIX, requestLogWriter } from "./log-writer";
import { maintainPartitions } from "./partitions";

const log = logFor("request-log");
const MAINTENANCE_MS = 3_600_000;

/** Turns the request log's spool on in `dir`; returns its replay (idempotent: rows carry their key). */
export function useRequestLogSpool(dir: string): () => Promise<number> {
  requestLogWriter().useSpool(new Spool<RequestLogRow>(dir, LOG_SPOOL_PREFIX));
  return () => replaySpool<RequestLogRow>(dir, LOG_SPOOL_PREFIX, commitLogRows);
}

/** Keeps the partitions now and every hour; returns the timer. */
export function startLogMaintenance(): NodeJS.Timeout {
  const run = () => void maintainPartitions().catch((err: unknown) => log.error({ err }, "request log: partition upkeep failed"));
  run();
  return setInterval(run, MAINTENANCE_MS).unref();
}
