// A batch worker's run of one batch: validate its input file (`validating` -> `in_progress`, or
// `failed` with the lines' errors), run the lines not yet done, BATCH_CONCURRENCY at a time,
// through the pipeline the process hands it (`RunLine`: the same stages as a live call of the
// batch's caller), and finalize (finalize-batch.ts). Every finished line is written once
// (BatchLine), so an attempt that resumes after its worker died skips it; a line in flight when a
// worker died runs again under the same usage event id (`<batch>:<index>`), which the ledger
// charges once. A cancel or the end of the window stops further lines; what is done is kept.
import type { CallContext, Principal } from "../identity/principal";
import { findFile, readFileBytes } from "../files/find-file";
import { hostname } from "node:os";
import { db } from "../infra/db/client";
import { env } from "../infra/env";
import { GatewayError } from "../kernel/errors";
import { newRequestId } from "../kernel/ids";
import { awaitBackgroundTurn, sleep } from "./background-tier";
import { batchPrincipal } from "./batch-caller";
import { awaitLineStart } from "./live-pace";
import type { BatchRow } from "./batch-object";
import { finalizeBatch, type StopReason } from "./finalize-batch";
import { parseInputLines, type InputLine } from "./input-lines";
import { LineWriter, type FinishedLine } from "./line-writer";
import { lineContext, priceFactorOf } from "./line-context";

/** This process, as a batch's row names the worker running it. */
export const BATCH_WORKER_ID = `${hostname()}:${process.pid}`;

/**
 * How lines run, handed over by the process (server/batch-lines.ts): `run` makes one line's call
 * to the batch's endpoint as its caller and resolves with the JSON answer or throws the call's
 * error; `failure` gives that error's status and body as the endpoint answers them (OpenAI's
 * error object, or Anthropic's for /v1/messages).
 */
export type LineRunner = {
  run(ctx: CallContext, endpoint: string, body: Record<string, unknown>): Promise<unknown>;
  failure(err: unknown, endpoint: string, requestId: string): { status: number; body: unknown };
};

/** How often a running batch looks at its row (a cancel) and its caller (a key revoked since). */
const CHECK_MS = 500;
/** A line refused by rate limits is tried again this many times before it fails with the 429. */
const RATE_RETRIES = 20;

/** The body a line runs with: answers are JSON and whole (a stream or a background response asked for is answered at its end). */
function lineBody(body: Record<string, unknown>): Record<string, unknown> {
  const { stream: _stream, stream_options: _options, background: _background, ...rest } = body;
  return rest;
}

export async function runBatch(batchId: string, runLine: LineRunner, signal?: AbortSignal): Promise<void> {
  let batch = await db.batch.findUnique({ where: { id: batchId } });
  if (!batch || ["failed", "completed", "expired", "cancelled"].includes(batch.status)) return;
  await db.batch.update({ where: { id: batch.id }, data: { workerId: BATCH_WORKER_ID, attempts: { increment: 1 } } });
  const lines = await readLines(batch);
  if (!lines) return; // the batch failed validation
  if (batch.status === "validating") {
    const started = await db.batch.updateManyAndReturn({ where: { id: batch.id, status: "validating" }, data: { status: "in_progress", total: lines.length, inProgressAt: new Date() } });
    batch = started[0] ?? (await db.batch.findUniqueOrThrow({ where: { id: batch.id } }));
  }
  if (batch.status === "in_progress" || batch.status === "cancelling") {
    const stopped = await runLines(batch, lines, runLine, signal);
    // Failing the attempt (not ending it) is what makes pg-boss retry the job: the next attempt resumes the batch.
    if (stopped === "shutdown") throw new Error(`batch ${batch.id}: this process stopped; the next attempt resumes it`);
    await finalizeBatch(batch, lines, stopped);
  } else if (batch.status === "finalizing") {
    await finalizeBatch(batch, lines, null);
  }
}

/** The input file's lines, or null after failing the batch for a missing file or bad lines. */
async function readLines(batch: BatchRow): Promise<InputLine[] | null> {
  let text: string;
  try {
    text = (await readFileBytes(await findFile(batch.workspaceId, batch.inputFileId, "input_file_id"))).toString("utf8");
  } catch (err) {
    if (!(err instanceof GatewayError) || err.status !== 404) throw err;
    await failBatch(batch, [{ code: "input_file_not_found", message: `The input file '${batch.inputFileId}' no longer exists.`, param: "input_file_id", line: null }]);
    return null;
  }
  const { lines, errors } = parseInputLines(text, batch.endpoint);
  if (errors.length && batch.status === "validating") {
    await failBatch(batch, errors);
    return null;
  }
  return lines;
}

/** Ends a batch `failed` (a bad input file, or one deleted before the batch finished); the lines done stay billed. */
async function failBatch(batch: BatchRow, errors: object[]): Promise<void> {
  await db.batch.updateMany({ where: { id: batch.id, status: { in: ["validating", "in_progress", "cancelling", "finalizing"] } }, data: { status: "failed", failedAt: new Date(), errors } });
}

/** Runs the lines not done yet; says why it stopped early (null: every line ran). */
async function runLines(batch: BatchRow, lines: InputLine[], runLine: LineRunner, signal?: AbortSignal): Promise<StopReason | "shutdown" | null> {
  const doneRows = await db.batchLine.findMany({ where: { batchId: batch.id }, select: { index: true } });
  const done = new Set(doneRows.map((r) => r.index));
  const todo = lines.filter((l) => !done.has(l.index));
  const writer = new LineWriter(batch.id);
  let stop: StopReason | "shutdown" | null = batch.status === "cancelling" ? "cancelled" : null;
  let principal: Principal | GatewayError = await batchPrincipal(batch.workspaceId, batch.caller);
  let checked = 0; // the first line looks first (a batch resumed past its window runs none)
  const check = async () => {
    if (stop || Date.now() - checked < CHECK_MS) return;
    checked = Date.now();
    const row = await db.batch.findUnique({ where: { id: batch.id }, select: { status: true } });
    if (!row || row.status === "cancelling") stop = "cancelled";
    else if (batch.expiresAt.getTime() <= Date.now()) stop = "expired";
    else principal = await batchPrincipal(batch.workspaceId, batch.caller);
  };
  let next = 0;
  const lane = async () => {
    while (next < todo.length) {
      if (signal?.aborted) stop ??= "shutdown";
      await check();
      if (stop) return;
      await awaitLineStart(signal);
      if (signal?.aborted) stop ??= "shutdown";
      if (stop || next >= todo.length) return;
      const line = todo[next++]!;
      writer.add(await runOne(batch, line, principal, runLine, signal));
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(env.BATCH_CONCURRENCY, todo.length) }, lane));
  } finally {
    await writer.close();
  }
  if (!stop && batch.expiresAt.getTime() <= Date.now()) stop = "expired";
  return stop;
}

/** Runs one line; its answer or error as the output line records it. */
async function runOne(batch: BatchRow, line: InputLine, principal: Principal | GatewayError, runLine: LineRunner, signal?: AbortSignal): Promise<FinishedLine> {
  if (principal instanceof GatewayError) return failed(batch, line, runLine, newRequestId(), principal);
  const factor = await priceFactorOf(line.body.model, principal.workspaceId);
  for (let attempt = 0; ; attempt++) {
    await awaitBackgroundTurn(principal, signal);
    // Stopped while it waited for its turn: the line is not run here, the attempt that resumes the batch runs it.
    if (signal?.aborted) throw new Error(`batch ${batch.id}: this process stopped before line ${line.index} ran`);
    const ctx = lineContext(batch, line, principal, factor);
    try {
      const answer = await runLine.run(ctx, batch.endpoint, lineBody(line.body));
      return { index: line.index, customId: line.customId, statusCode: 200, requestId: ctx.requestId, body: answer, error: null, cost: ctx.charged() };
    } catch (err) {
      // A line cut short by this process stopping is not a result: the attempt that resumes the batch runs it again.
      if (signal?.aborted) throw err;
      if (err instanceof GatewayError && err.status === 429 && attempt < RATE_RETRIES) {
        await sleep(Number(err.detail.retryAfter ?? 1) * 1000, signal);
        continue;
      }
      return failed(batch, line, runLine, ctx.requestId, err, ctx.charged());
    }
  }
}

/** A failed line: the status and error body its endpoint answers the failure with. */
function failed(batch: BatchRow, line: InputLine, runLine: LineRunner, requestId: string, err: unknown, cost = "0"): FinishedLine {
  const { status, body } = runLine.failure(err, batch.endpoint, requestId);
  return { index: line.index, customId: line.customId, statusCode: status, requestId, body, error: null, cost };
}
