// Closed-loop load with autocannon: `connections` keep-alive connections, each sending its next
// request as soon as the previous answer arrived. For a time (`seconds`) or a request count.
import autocannon from "autocannon";
import { UNIQUE, uniqueId } from "./fixed-rate";

export type CannonSpec = {
  kind: "cannon";
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  /** Run for this long... */
  seconds?: number;
  /** ...or until this many requests are answered. */
  amount?: number;
  /** Each request's body has UNIQUE replaced by a number of its own (every call a new request: cache misses). */
  unique?: boolean;
};

export type CannonResult = {
  requests: number;
  seconds: number;
  rps: number;
  /** Connection errors + timeouts + non-2xx answers: must be 0 for a valid row. */
  errors: number;
  non2xx: number;
  /** autocannon's latencies (1 ms resolution). */
  p50: number;
  p99: number;
};

export async function cannon(spec: CannonSpec, onStart: () => void = () => {}): Promise<CannonResult> {
  onStart();
  const r = await autocannon({
    url: spec.url,
    method: "POST",
    headers: spec.headers,
    body: spec.body,
    ...(spec.unique && { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: spec.body.replace(UNIQUE, uniqueId()) }) }] }),
    connections: spec.connections,
    ...(spec.amount ? { amount: spec.amount } : { duration: spec.seconds ?? 10 }),
  });
  return {
    requests: r.requests.total,
    seconds: r.duration,
    rps: r.requests.total / r.duration,
    errors: r.errors + r.timeouts + r.non2xx,
    non2xx: r.non2xx,
    p50: r.latency.p50,
    p99: r.latency.p99,
  };
}
