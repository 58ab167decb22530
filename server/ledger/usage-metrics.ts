// The usage the ledger committed, as Prometheus counters: tokens and USD by model. The ledger's
// rows hold the exact amounts; these floats are for dashboards and alerts.
import { metrics } from "../infra/telemetry/metrics";
import type { Money } from "../kernel/money";

export function countUsage(modelId: string, tokens: { inputTokens?: number; outputTokens?: number }, cost: Money): void {
  const m = metrics();
  if (tokens.inputTokens) m.tokens.inc({ model: modelId, direction: "input" }, tokens.inputTokens);
  if (tokens.outputTokens) m.tokens.inc({ model: modelId, direction: "output" }, tokens.outputTokens);
  if (!cost.isZero()) m.cost.inc({ model: modelId }, cost.toNumber());
}
