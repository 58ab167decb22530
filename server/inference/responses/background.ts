// Background responses run in the instance that accepted them, without the client's connection.
// A cancel moves the stored response to `cancelled` (which a finishing run can no longer
// overwrite) and aborts the node call if it runs here. A gateway that stops while a background
// response runs loses that run: the sweeper marks it failed (background_interrupted) once it
// has been open longer than BACKGROUND_RESPONSE_TIMEOUT_MS; the interrupted run costs nothing.
// The call's reservation (admitted before the response was accepted) is held until the run ends.
import type { ModelRow } from "../../routing/catalog/model-row";
import { release, type Metering } from "../../ledger/meter";
import { completeOnNode } from "../chat/call-node";
import { db } from "../../infra/db/client";
import { GatewayError } from "../../kernel/errors";
import { settleResponse } from "./store";
import { outputFromCompletion } from "./translate";

const running = new Map<string, AbortController>();
export const BACKGROUND_RESPONSE_TIMEOUT_MS = 15 * 60_000;

function failure(err: unknown): { code: string; message: string } {
  if (err instanceof GatewayError) return { code: err.code, message: err.message };
  console.error("background response failed:", err);
  return { code: "server_error", message: "The gateway failed while running this response." };
}

export function runInBackground(m: Metering, row: ModelRow, chatRequest: Record<string, unknown>, id: string): void {
  const controller = new AbortController();
  running.set(id, controller);
  void (async () => {
    try {
      const started = await db.storedResponse.updateMany({ where: { id, status: "queued" }, data: { status: "in_progress" } });
      if (!started.count) return; // cancelled while queued
      const completion = await completeOnNode(m, row, chatRequest, controller.signal);
      const { output, outcome, usage } = outputFromCompletion(completion);
      await settleResponse(id, { status: outcome.status, output, usage, error: null, incompleteDetails: outcome.incompleteDetails, completedAt: new Date() });
    } catch (err) {
      if (controller.signal.aborted) return;
      await settleResponse(id, { status: "failed", output: [], usage: null, error: failure(err), incompleteDetails: null, completedAt: new Date() }).catch(
        (e) => console.error("could not record a failed background response:", e),
      );
    } finally {
      release(m); // the reservation ends with the charge, or here if there was none
      running.delete(id);
    }
  })();
}

export function abortBackground(id: string): void {
  running.get(id)?.abort();
}

/** Fails background responses left open by a gateway that stopped (see above). */
export async function sweepInterruptedResponses(): Promise<number> {
  const cutoff = new Date(Date.now() - BACKGROUND_RESPONSE_TIMEOUT_MS);
  const { count } = await db.storedResponse.updateMany({
    where: { background: true, status: { in: ["queued", "in_progress"] }, createdAt: { lt: cutoff }, id: { notIn: [...running.keys()] } },
    data: {
      status: "failed",
      error: { code: "background_interrupted", message: "The gateway stopped while this response was running." },
      completedAt: new Date(),
    },
  });
  return count;
}
