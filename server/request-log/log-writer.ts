// The request log's writer: rows are appended to the process's spool file as their answers end,
// before the answers' last bytes go out (infra/spool: nothing answered is lost to a SIGKILL; the
// next process commits what a dead one left), and written to PostgreSQL together every
// LOG_FLUSH_MS, one statement per batch, off the request path. While the database is unreachable the rows wait (up to MAX_QUEUED; past it the
// oldest in memory are dropped, still in the spool file for the next process to commit).
import { behindQueryable } from "../infra/db/write-pool";
import { env } from "../infra/env";
import type { Segment, Spool } from "../infra/spool/spool";
import { logFor } from "../infra/telemetry/log";
import { exportLogRecord, logExportOn } from "../infra/telemetry/log-export";
import { writeBodies } from "./capture/body-store";
import { INSERT_SQL, insertParams, type RequestLogRow } from "./log-row";

const log = logFor("request-log");
const MAX_BATCH = 1000;
const MAX_QUEUED = 100_000;
const RETRY_MS = 2000;

export const LOG_SPOOL_PREFIX = "requestlog~";

type Queued = { row: RequestLogRow; segment: Segment | null };

export class RequestLogWriter {
  private queue: Queued[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private spool: Spool<RequestLogRow> | null = null;

  useSpool(spool: Spool<RequestLogRow>): void {
    this.spool = spool;
  }

  /**
   * Queues a row; returns when it is down in the spool (never rejects: a row the spool could not
   * take waits in memory). Written with the other lines of this turn: one write(2) for them all;
   * `now`: written at once (with the turn's lines waiting so far).
   */
  record(row: RequestLogRow, now = false): Promise<void> | undefined {
    if (logExportOn()) exportRow(row);
    const queued: Queued = { row, segment: null };
    let written: Promise<void> | undefined;
    try {
      if (now && this.spool) queued.segment = this.spool.append(row);
      const appended = now ? undefined : this.spool?.appendSoon(row);
      if (appended) {
        queued.segment = appended.segment;
        written = appended.written.catch((err: unknown) => {
          log.warn({ err }, "request log: the spool could not be written; the row waits in memory");
          queued.segment = null; // not in the file: nothing of it to mark committed there
        });
      }
    } catch (err) {
      log.warn({ err }, "request log: the spool could not be written; the row waits in memory");
    }
    this.queue.push(queued);
    if (this.queue.length > MAX_QUEUED) this.queue.splice(0, this.queue.length - MAX_QUEUED);
    this.schedule(env.LOG_FLUSH_MS);
    return written;
  }

  /** Writes everything queued now (shutdown, tests). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.flushing) await this.flushing;
    while (this.queue.length) {
      this.flushing = this.writeBatch();
      try {
        await this.flushing;
      } finally {
        this.flushing = null;
      }
    }
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.flushing) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flushing = this.writeBatch()
        .catch((err: unknown) => {
          log.error({ err }, "request log: a batch could not be written; it is tried again");
          return new Promise<void>((r) => setTimeout(r, RETRY_MS).unref());
        })
        .finally(() => {
          this.flushing = null;
          if (this.queue.length) this.schedule(env.LOG_FLUSH_MS);
        });
    }, delayMs);
    this.timer.unref();
  }

  private async writeBatch(): Promise<void> {
    const batch = this.queue.slice(0, MAX_BATCH);
    if (!batch.length) return;
    const rows = batch.map((q) => q.row);
    await behindQueryable.$queryRawUnsafe(INSERT_SQL, ...insertParams(rows));
    await writeBodies(rows);
    this.queue.splice(0, batch.length);
    for (const q of batch) if (q.segment) this.spool?.committed(q.segment);
  }
}

/** A row as an OpenTelemetry log record: its fields as attributes (`gateway.*`), tags as `gateway.tag.<key>`. */
function exportRow(row: RequestLogRow): void {
  const attributes: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value === null || value === undefined || key === "tags" || key === "createdAt" || key === "body") continue;
    attributes[`gateway.${key}`] = value as string | number | boolean;
  }
  for (const [key, value] of Object.entries(row.tags ?? {})) attributes[`gateway.tag.${key}`] = value;
  if (row.body) attributes["gateway.captured"] = true; // the bodies stay in the gateway's database
  exportLogRecord(`${row.method} ${row.route} ${row.status}`, attributes, new Date(row.createdAt));
}

const state = globalThis as unknown as { gatewayRequestLog?: RequestLogWriter };

export function requestLogWriter(): RequestLogWriter {
  return (state.gatewayRequestLog ??= new RequestLogWriter());
}

/** Commits rows a stopped process left in its spool (idempotent: a row's key is its time and request id). */
export async function commitLogRows(rows: RequestLogRow[]): Promise<number> {
  let written = 0;
  for (let i = 0; i < rows.length; i += MAX_BATCH) {
    const batch = rows.slice(i, i + MAX_BATCH);
    const result = await behindQueryable.$queryRawUnsafe<unknown[]>(`${INSERT_SQL} RETURNING 1`, ...insertParams(batch));
    await writeBodies(batch);
    written += result.length;
  }
  return written;
}
