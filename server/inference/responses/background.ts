// Background responses run in the process that accepted them, without the client's connection.
// A cancel moves the stored response to `cancelled` (which a finishing run can no longer
// overwrite) and aborts the node call if it runs here. The call's reservation (admitted before
// the response was accepted) is held until the run ends.
//
// A run is lost when its process stops: a process that shuts down lets its runs finish during
// its drain and fails those still running at the drain's end (stopBackgroundResponses); a
// process that dies leaves them open. Each run holds a lock its process's death releases at once
// (run-locks.ts), and the sweep, run by every instance when it starts and every
// SWEEP_INTERVAL_MS after, fails (background_interrupted) an open response found without a run
// in two sweeps in a row: about one interval (10 s) after the next start, or at most two after
// the death while another instance runs. The second look spares a live run whose lock is being
// taken again after its database connection broke. A failed run costs nothing: a run is only
// charged once its response settled, and the reservation of a lost run returns with the dead
// instance's credit lease when that lease expires (30 s).
import type { ModelRow } from "../../routing/catalog/model-row";
import { release, type Metering } from "../../ledger/meter";
import { callNode } from "../chat/call-node";
import { Prisma } from "../../generated/prisma/client";
import { db } from "../../infra/db/client";
import { GatewayError } from "../../kernel/errors";
import type { ConversationTurn } from "./conversation-turn";
import { RUN_LOCK_SPACE, claimRun, endRun } from "./run-locks";
import { settleResponse } from "./store";
import { outputFromCompletion } from "./translate";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("responses");

const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
export const SWEEP_INTERVAL_MS = 10_000;

function failure(err: unknown): { code: string; message: string } {
  if (err instanceof GatewayError) return { code: err.code, message: err.message };
  log.error({ err }, "background response failed");
  return { code: "server_error", message: "The gateway failed while running this response." };
}

const interrupted = () => ({
  status: "failed" as const,
  output: [],
  usage: null,
  error: { code: "background_interrupted", message: "The gateway stopped while this response was running. Nothing was charged; create it again." },
  incompleteDetails: null,
  completedAt: new Date(),
});

export function runInBackground(m: Metering, row: ModelRow, chatRequest: Record<string, unknown>, id: string, turn: ConversationTurn | null = null): void {
  const controller = new AbortController();
  const done = (async () => {
    try {
      await claimRun(id);
      const started = await db.storedResponse.updateMany({ where: { id, status: "queued" }, data: { status: "in_progress" } });
      if (!started.count) return; // cancelled while queued
      const { result, charge } = await callNode(m, row, chatRequest, controller.signal);
      const { output, outcome, usage } = outputFromCompletion(result);
      // Appended to its conversation, settled, then charged: a response cancelled meanwhile, or
      // failed as lost by a sweep, is taken out of the conversation again and not charged, and a
      // process that dies between settling and charging leaves it answered and unbilled, never
      // billed and failed. (One that dies between appending and settling leaves the turn in the
      // conversation while the sweep fails the response: the one window where the two disagree.)
      await turn?.append(output);
      const settled = await settleResponse(id, { status: outcome.status, output, usage, error: null, incompleteDetails: outcome.incompleteDetails, completedAt: new Date() });
      if (!settled) {
        await turn?.undo();
        return;
      }
      try {
        await charge();
      } catch (err) {
        await turn?.undo();
        await settleResponse(id, { status: "failed", output: [], usage: null, error: failure(err), incompleteDetails: null, completedAt: new Date() }, [outcome.status]);
      }
    } catch (err) {
      await turn?.undo(); // a run that failed after appending its turn takes it out again
      if (controller.signal.aborted) return;
      await settleResponse(id, { status: "failed", output: [], usage: null, error: failure(err), incompleteDetails: null, completedAt: new Date() }).catch(
        (e) => log.error({ err: e }, "could not record a failed background response"),
      );
    } finally {
      release(m); // the reservation ends with the charge, or here if there was none
      running.delete(id);
      endRun(id);
    }
  })();
  running.set(id, { controller, done });
}

export function abortBackground(id: string): void {
  running.get(id)?.controller.abort();
}

/**
 * At shutdown: lets this process's runs finish until `deadline`, then aborts those still running
 * and fails them (uncharged), rather than leaving them to another instance's sweep.
 */
export async function stopBackgroundResponses(deadline: number): Promise<void> {
  while (running.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, Math.min(100, deadline - Date.now())));
  const left = [...running.entries()];
  if (!left.length) return;
  for (const [, run] of left) run.controller.abort();
  // An aborted run ends at once, unless its charge was already committing: it then settles as
  // finished, and the failure below (from an open status only) does not overwrite it.
  await Promise.race([Promise.all(left.map(([, run]) => run.done)), new Promise((r) => setTimeout(r, 1000))]);
  await Promise.all(left.map(([id]) => settleResponse(id, interrupted()).catch((err) => log.error({ err }, `could not fail background response ${id}`))));
}

/** Open background responses without a run in the last sweep: failed if still without one now. */
let suspects = new Set<string>();

/** Open background responses whose run no live process holds (run-locks.ts). */
async function withoutRun(ids?: string[]): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT r."id" FROM "StoredResponse" r
    WHERE r."background" AND r."status" IN ('queued', 'in_progress')
      ${ids ? Prisma.sql`AND r."id" IN (${Prisma.join(ids)})` : Prisma.empty}
      AND NOT EXISTS (
        SELECT 1 FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.objsubid = 2
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid::bigint = ${RUN_LOCK_SPACE}
          AND l.objid::bigint = (hashtext(r."id")::bigint & 4294967295))`;
  return rows.map((r) => r.id).filter((id) => !running.has(id));
}

/** Fails background responses whose run was lost (see above); returns how many. */
export async function sweepInterruptedResponses(): Promise<number> {
  const seen = await withoutRun();
  const lost = seen.filter((id) => suspects.has(id));
  suspects = new Set(seen.filter((id) => !suspects.has(id)));
  if (!lost.length) return 0;
  // Looked at once more right before: a run that took its lock since the first look is kept.
  const confirmed = await withoutRun(lost);
  const failed = await Promise.all(confirmed.map((id) => settleResponse(id, interrupted())));
  return failed.filter(Boolean).length;
}
