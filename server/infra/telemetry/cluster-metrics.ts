// Metrics of every process of a gateway instance as one: the cluster's primary gathers each
// process's figures (prom-client's AggregatorRegistry) and a process asked for /metrics gets the
// aggregate from the primary over the cluster's IPC channel. A process outside a cluster answers
// with its own.
import cluster from "node:cluster";
import { AggregatorRegistry, type PrometheusContentType } from "prom-client";
import { processMetrics } from "./metrics";

const ASK = "gateway:metrics?";
const ANSWER = "gateway:metrics";
type Ask = { type: typeof ASK; id: number };
type Answer = { type: typeof ANSWER; id: number; text?: string; error?: string };

let aggregator: AggregatorRegistry<PrometheusContentType> | undefined;

/** In the primary: every worker's metrics, aggregated. */
export function clusterMetrics(): Promise<string> {
  aggregator ??= new AggregatorRegistry();
  return aggregator.clusterMetrics();
}

/** In the primary: answers its processes' requests for the aggregate. */
export function answerMetricsRequests(): void {
  cluster.on("message", (worker, message: Ask) => {
    if (message?.type !== ASK) return;
    clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id: message.id, text } satisfies Answer),
      (err: unknown) => worker.send({ type: ANSWER, id: message.id, error: String(err) } satisfies Answer),
    );
  });
}

let nextId = 0;
let listening = false;
const waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();

function askPrimary(): Promise<string> {
  if (!listening) {
    listening = true;
    process.on("message", (message: Answer) => {
      if (message?.type !== ANSWER) return;
      const w = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.text !== undefined) w?.resolve(message.text);
      else w?.reject(new Error(message.error ?? "no metrics"));
    });
  }
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error("the primary process did not answer with metrics in time"));
    }, 10_000).unref();
    const settle = <T>(fn: (v: T) => void) => (v: T) => {
      clearTimeout(timer);
      fn(v);
    };
    waiting.set(id, { resolve: settle(resolve), reject: settle(reject) });
    process.send!({ type: ASK, id } satisfies Ask);
  });
}

/** The instance's metrics, from whichever process is asked. */
export function instanceMetrics(): Promise<string> {
  return cluster.isWorker && process.send ? askPrimary() : processMetrics();
}
