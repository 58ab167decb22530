// What this process knows of each route target (a model, or a model on one node) from the calls it
// made: a moving estimate of its time to first byte, its calls in flight, and until when it is
// cooling down after a rate limit (an upstream's Retry-After). Latency and calls in flight are
// kept per process, as the node router's own counts are: each instance balances what it sends
// (docs/ROUTING.md). A cool-down is told to every process (NOTIFY), so no instance sends the next
// call to a target that just said to wait.
import { boundedLru } from "../../infra/cache/bounded-lru";
import { db } from "../../infra/db/client";
import { Channel, listen, notify } from "../../infra/db/notify";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("routing");

/** Weight of the newest sample in the moving estimate of a target's time to first byte. */
const ALPHA = 0.3;

type Stats = { latencyMs: number; samples: number; inFlight: number; coolUntil: number };

const stats = boundedLru<string, Stats>(10_000);

function statsOf(key: string): Stats {
  let s = stats.get(key);
  if (!s) stats.set(key, (s = { latencyMs: 0, samples: 0, inFlight: 0, coolUntil: 0 }));
  return s;
}

/** A target's key: its model, and its node when pinned. */
export const targetKey = (model: string, node: string | undefined) => (node ? `${model}@${node}` : model);

export function latencyOf(key: string): { ms: number; samples: number } {
  const s = stats.get(key);
  return { ms: s?.latencyMs ?? 0, samples: s?.samples ?? 0 };
}

export const inFlightOf = (key: string) => stats.get(key)?.inFlight ?? 0;

export const coolingUntil = (key: string) => stats.get(key)?.coolUntil ?? 0;

/** Counts an attempt in flight on the target until the returned function is called. */
export function startAttempt(key: string): () => void {
  const s = statsOf(key);
  s.inFlight++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    s.inFlight = Math.max(0, s.inFlight - 1);
  };
}

/** A time to first byte seen on the target (a failure counts as its time, so a failing target is not the fastest). */
export function recordLatency(key: string, ms: number): void {
  const s = statsOf(key);
  s.latencyMs = s.samples === 0 ? ms : s.latencyMs + ALPHA * (ms - s.latencyMs);
  s.samples++;
}

function noteCoolDown(key: string, until: number): void {
  const s = statsOf(key);
  s.coolUntil = Math.max(s.coolUntil, until);
}

let listening: Promise<void> | undefined;
/** Listens for the cool-downs other processes saw (started with the first route call of the process). */
export function listenForCoolDowns(): void {
  listening ??= listen(Channel.routeCooldown, (payload) => {
    const space = payload.indexOf(" ");
    const until = Number(payload.slice(0, space));
    if (space > 0 && Number.isFinite(until)) noteCoolDown(payload.slice(space + 1), until);
  }).catch((err: unknown) => {
    listening = undefined;
    log.error({ err }, "route cool-downs: LISTEN failed");
  });
}

/** A rate-limited target is passed over until `until` (the upstream's Retry-After), by every process. */
export async function coolDown(key: string, until: number): Promise<void> {
  noteCoolDown(key, until);
  await notify(db, Channel.routeCooldown, `${until} ${key}`).catch((err: unknown) => log.error({ err }, "could not tell a route cool-down"));
}
