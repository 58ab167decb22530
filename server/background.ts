// Background work of a gateway server process.
import { startHealthChecks } from "./network/health-check";
import { sweepInterruptedResponses } from "./responses/background";

let started = false;

export function startBackground(): void {
  if (started) return;
  started = true;
  startHealthChecks();
  setInterval(() => sweepInterruptedResponses().catch((err) => console.error("response sweep failed:", err)), 60_000).unref();
}
