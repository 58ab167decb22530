// The call context of one batch line: its caller, a request id of its own, the batch as its tag,
// the fixed usage event id and price fraction the meter applies (kernel/call-context.ts), and an
// observer that keeps what the ledger charged it.
import type { CallContext, Principal } from "../identity/principal";
import { findModel } from "../routing/catalog/catalog-cache";
import { newRequestId } from "../kernel/ids";
import { formatMoney } from "../kernel/money";
import type { BatchRow } from "./batch-object";
import type { InputLine } from "./input-lines";

export type LineContext = CallContext & { charged(): string };

/** The fraction of the live price a line of this model costs: its catalog's batch discount (0.5 when the model is unknown, which fails the line anyway). */
export async function priceFactorOf(model: unknown, workspaceId: string): Promise<string> {
  if (typeof model !== "string") return "0.5";
  try {
    return formatMoney((await findModel(model, workspaceId)).row.batchDiscount);
  } catch {
    return "0.5";
  }
}

export function lineContext(batch: BatchRow, line: InputLine, principal: Principal, priceFactor: string): LineContext {
  let cost = "0";
  return {
    principal,
    requestId: newRequestId(),
    outcome: { tags: { batch: batch.id } },
    batchLine: { eventId: `${batch.id}:${line.index}`, priceFactor },
    observer: {
      charged: (c) => void (cost = c.cost),
      usageWrite: (write) => write,
    },
    charged: () => cost,
  };
}
