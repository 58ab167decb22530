// Background work of a gateway server process.
import { startHealthChecks } from "./network/health-check";

let started = false;

export function startBackground(): void {
  if (started) return;
  started = true;
  startHealthChecks();
}
