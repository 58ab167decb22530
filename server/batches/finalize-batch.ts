// The end of a batch: its output file (the lines answered 2xx, in input order) and its error
// file (the lines that failed; for a batch that expired, also the lines never run), in OpenAI's
// line format, written as files of purpose `batch_output`; then its final status, counts, usage
// and cost, read back from the lines written, so they are exactly what the lines record.
import { storeFile } from "../files/store-file";
import { db } from "../infra/db/client";
import { randomBase62 } from "../kernel/ids";
import { GatewayError } from "../kernel/errors";
import { logFor } from "../infra/telemetry/log";
import type { BatchRow } from "./batch-object";
import type { InputLine } from "./input-lines";

const log = logFor("batches");

/** Why a batch stopped before every line ran. */
export type StopReason = "cancelled" | "expired";

type Usage = { input_tokens: number; output_tokens: number; cached_tokens: number; reasoning_tokens: number };

const PAGE = 1000;

/** Tokens of one answer, whichever API it is in (chat, responses, embeddings, messages). */
function addUsage(total: Usage, body: unknown): void {
  const u = (body as { usage?: Record<string, unknown> } | null)?.usage;
  if (!u) return;
  const n = (v: unknown) => (typeof v === "number" ? v : 0);
  const details = (key: string) => (u[key] ?? {}) as Record<string, unknown>;
  total.input_tokens += n(u.prompt_tokens ?? u.input_tokens);
  total.output_tokens += n(u.completion_tokens ?? u.output_tokens);
  total.cached_tokens += n(details("prompt_tokens_details").cached_tokens ?? details("input_tokens_details").cached_tokens);
  total.reasoning_tokens += n(details("completion_tokens_details").reasoning_tokens ?? details("output_tokens_details").reasoning_tokens);
}

export async function finalizeBatch(batch: BatchRow, lines: InputLine[], stopped: StopReason | null): Promise<void> {
  if (!stopped) await db.batch.updateMany({ where: { id: batch.id, status: "in_progress" }, data: { status: "finalizing", finalizingAt: new Date() } });
  const output: string[] = [];
  const failures: string[] = [];
  const usage: Usage = { input_tokens: 0, output_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 };
  const seen = new Set<number>();
  let ok = 0;
  for (let from = 0; ; from += PAGE) {
    const rows = await db.batchLine.findMany({ where: { batchId: batch.id, index: { gte: from, lt: from + PAGE } }, orderBy: { index: "asc" } });
    for (const r of rows) {
      seen.add(r.index);
      const line = JSON.stringify({ id: `batch_req_${randomBase62(24)}`, custom_id: r.customId, response: { status_code: r.statusCode, request_id: r.requestId, body: r.body }, error: r.error ?? null });
      if (r.statusCode < 400) {
        ok++;
        output.push(line);
        addUsage(usage, r.body);
      } else failures.push(line);
    }
    if (from + PAGE >= lines.length) break;
  }
  if (stopped === "expired") {
    for (const l of lines) {
      if (seen.has(l.index)) continue;
      failures.push(JSON.stringify({ id: `batch_req_${randomBase62(24)}`, custom_id: l.customId, response: null, error: { code: "batch_expired", message: "This line was not run before the batch expired." } }));
    }
  }
  const owner = { workspaceId: batch.workspaceId, apiKeyId: batch.apiKeyId };
  const expiresAt = batch.outputExpiresAfter ? new Date(Date.now() + batch.outputExpiresAfter * 1000) : null;
  const write = async (kind: "output" | "error", rows: string[]) =>
    rows.length
      ? (await storeFile(owner, { filename: `${batch.id}_${kind}.jsonl`, purpose: "batch_output", data: Buffer.from(rows.join("\n") + "\n"), contentType: "application/jsonl", expiresAt })).id
      : null;
  let outputFileId: string | null;
  let errorFileId: string | null;
  try {
    outputFileId = await write("output", output);
    errorFileId = await write("error", failures);
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    log.warn({ batchId: batch.id, code: err.code }, "batch output could not be stored");
    await db.batch.update({ where: { id: batch.id }, data: { status: "failed", failedAt: new Date(), errors: [{ code: err.code, message: `The batch's results could not be stored: ${err.message}`, param: null, line: null }] } });
    return;
  }
  const cost = await db.batchLine.aggregate({ where: { batchId: batch.id }, _sum: { cost: true } });
  const now = new Date();
  const end = stopped === "cancelled" ? { status: "cancelled" as const, cancelledAt: now } : stopped === "expired" ? { status: "expired" as const, expiredAt: now } : { status: "completed" as const, completedAt: now };
  await db.batch.update({
    where: { id: batch.id },
    data: { ...end, outputFileId, errorFileId, completed: ok, failed: seen.size - ok + (stopped === "expired" ? lines.length - seen.size : 0), cost: cost._sum.cost ?? 0, usage },
  });
}
