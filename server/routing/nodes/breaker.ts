// Per-instance circuit breaker: a node that failed BREAKER_FAILURES times in a row is taken out
// of rotation. It comes back when a health check passes, or for one trial call once
// BREAKER_COOLDOWN_MS has passed (a failed trial opens it again).
import { env } from "../../infra/env";

type State = { failures: number; openUntil: number; trial: boolean };
const states = new Map<string, State>();

function get(nodeId: string): State {
  let s = states.get(nodeId);
  if (!s) states.set(nodeId, (s = { failures: 0, openUntil: 0, trial: false }));
  return s;
}

/** Whether the node may take a call now. Past the cooldown, one trial call is let through. */
export function breakerAllows(nodeId: string, now = Date.now()): boolean {
  const s = states.get(nodeId);
  if (!s || s.failures < env.BREAKER_FAILURES) return true;
  if (now < s.openUntil || s.trial) return false;
  s.trial = true;
  return true;
}

export function recordSuccess(nodeId: string): void {
  states.delete(nodeId);
}

/**
 * A passed health check clears a node's failure count, but brings an open breaker back only
 * once its cooldown is over: a node that answers health checks yet fails calls stays out.
 */
export function healthCheckPassed(nodeId: string, now = Date.now()): void {
  const s = states.get(nodeId);
  if (!s) return;
  if (s.failures < env.BREAKER_FAILURES || now >= s.openUntil) states.delete(nodeId);
}

export function recordFailure(nodeId: string, now = Date.now()): void {
  const s = get(nodeId);
  s.failures += 1;
  s.trial = false;
  if (s.failures >= env.BREAKER_FAILURES) s.openUntil = now + env.BREAKER_COOLDOWN_MS;
}

export function isOpen(nodeId: string): boolean {
  return (states.get(nodeId)?.failures ?? 0) >= env.BREAKER_FAILURES;
}
