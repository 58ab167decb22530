// Circuit breaker: a node that failed BREAKER_FAILURES times in a row is taken out of rotation.
// It comes back when a health check passes, or for one trial call once BREAKER_COOLDOWN_MS has
// passed (a failed trial opens it again).
//
// Shared by every gateway process and instance: each failure, and the first success after
// failures, is told to the others over LISTEN/NOTIFY, so the count is of the node's failures
// wherever they happened, not of one process's share of them (with N processes a node would
// otherwise take N times as many failed calls before it is left alone). Successes otherwise
// stay local: they are the hot path. Cooldowns run on each instance's own clock.
import { randomUUID } from "node:crypto";
import { db } from "../../infra/db/client";
import { Channel, listen, notify } from "../../infra/db/notify";
import { env } from "../../infra/env";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("routing");

type State = { failures: number; openUntil: number; trial: boolean };
const states = new Map<string, State>();
const instance = randomUUID();
let subscribed: Promise<void> | undefined;

function subscribe(): void {
  subscribed ??= listen(Channel.breaker, (payload) => {
    if (payload === "*") return; // after a reconnect: nothing to replay, failures recur if real
    const [kind, from, nodeId] = payload.split(" ");
    if (!nodeId || from === instance) return;
    if (kind === "fail") countFailure(nodeId);
    else if (kind === "ok") states.delete(nodeId);
  }).catch((err) => {
    subscribed = undefined;
    log.error({ err }, "breaker: LISTEN failed");
  });
}

function tell(kind: "fail" | "ok", nodeId: string): Promise<void> {
  return notify(db, Channel.breaker, `${kind} ${instance} ${nodeId}`).catch((err) => log.error({ err }, "breaker: NOTIFY failed"));
}

function countFailure(nodeId: string, now = Date.now()): void {
  let s = states.get(nodeId);
  if (!s) states.set(nodeId, (s = { failures: 0, openUntil: 0, trial: false }));
  s.failures += 1;
  s.trial = false;
  if (s.failures >= env.BREAKER_FAILURES) s.openUntil = now + env.BREAKER_COOLDOWN_MS;
}

/** Whether the node may take a call now. Past the cooldown, one trial call is let through. */
/** Whether the node's breaker is open now (no call goes to it), without taking its trial call. */
export function breakerOpen(nodeId: string, now = Date.now()): boolean {
  const s = states.get(nodeId);
  return !!s && s.failures >= env.BREAKER_FAILURES && (now < s.openUntil || s.trial);
}

export function breakerAllows(nodeId: string, now = Date.now()): boolean {
  subscribe();
  const s = states.get(nodeId);
  if (!s || s.failures < env.BREAKER_FAILURES) return true;
  if (now < s.openUntil || s.trial) return false;
  s.trial = true;
  return true;
}

export function recordSuccess(nodeId: string): void {
  if (states.delete(nodeId)) void tell("ok", nodeId);
}

/**
 * A passed health check brings an open breaker back once its cooldown is over. It does not clear
 * the count of failed calls (only a successful call does): a node that answers health checks yet
 * fails calls would otherwise never be taken out while checks kept passing between its failures.
 */
export function healthCheckPassed(nodeId: string, now = Date.now()): void {
  const s = states.get(nodeId);
  if (s && s.failures >= env.BREAKER_FAILURES && now >= s.openUntil) states.delete(nodeId);
}

/** Counts a failed call here and tells the other processes; resolves once they have been told. */
export function recordFailure(nodeId: string, now = Date.now()): Promise<void> {
  subscribe();
  countFailure(nodeId, now);
  return tell("fail", nodeId);
}

export function isOpen(nodeId: string): boolean {
  return (states.get(nodeId)?.failures ?? 0) >= env.BREAKER_FAILURES;
}
