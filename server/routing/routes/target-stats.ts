// What this process knows of each route target (a model, or a model on one node) from the calls it
// made: a moving estimate of its time to first byte, its calls in flight, and until when it is
// cooling down after a rate limit (an upstream's Retry-After). Kept per process, as the node
// router's own counts are: each instance balances what it sends (docs/ROUTING.md).
import { boundedLru } from "../../infra/cache/bounded-lru";

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

/** A rate-limited target is passed over until `until` (the upstream's Retry-After). */
export function coolDown(key: string, until: number): void {
  const s = statsOf(key);
  s.coolUntil = Math.max(s.coolUntil, until);
}
