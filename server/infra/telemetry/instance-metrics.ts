// Metrics of every process of a gateway instance as one. The first process (which hands the
// connections out, server/transport/node/gateway-server.ts) asks each other process for its
// figures over IPC and aggregates them with its own (prom-client's AggregatorRegistry.aggregate:
// counters and histograms summed, each gauge as it says); another process asked for /metrics gets
// that aggregate from the first. A process alone answers with its own.
import type { ChildProcess } from "node:child_process";
import { AggregatorRegistry, register } from "prom-client";
import { metrics, processMetrics } from "./metrics";

const ASK_OWN = "gateway:metrics-own?";
const OWN = "gateway:metrics-own";
const ASK_ALL = "gateway:metrics?";
const ALL = "gateway:metrics";
const TIMEOUT_MS = 10_000;

type Message = { type: string; id: number; payload?: unknown; error?: string };
type Sender = { send?: (message: Message) => boolean };

let others: () => ChildProcess[] = () => [];
let nextId = 0;
const waiting = new Map<number, { resolve: (payload: unknown) => void; reject: (err: Error) => void }>();

function ask(to: Sender, type: string): Promise<unknown> {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error("a gateway process did not answer with its metrics in time"));
    }, TIMEOUT_MS).unref();
    const settle =
      <T>(fn: (v: T) => void) =>
      (v: T) => {
        clearTimeout(timer);
        fn(v);
      };
    waiting.set(id, { resolve: settle(resolve), reject: settle(reject) });
    to.send?.({ type, id });
  });
}

function answered(message: Message): void {
  const w = waiting.get(message.id);
  waiting.delete(message.id);
  if (message.error === undefined) w?.resolve(message.payload);
  else w?.reject(new Error(message.error));
}

function reply(to: Sender, type: string, id: number, work: () => Promise<unknown>): void {
  work().then(
    (payload) => to.send?.({ type, id, payload }),
    (err: unknown) => to.send?.({ type, id, error: String(err) }),
  );
}

/** In the first process: every process's metrics, aggregated. */
export async function allMetrics(): Promise<string> {
  const peers = others().filter((p) => p.connected);
  if (!peers.length) return processMetrics();
  metrics();
  const figures = await Promise.all([register.getMetricsAsJSON(), ...peers.map((p) => ask(p, ASK_OWN).catch(() => null))]);
  return AggregatorRegistry.aggregate(figures.filter((f): f is Awaited<ReturnType<typeof register.getMetricsAsJSON>> => Array.isArray(f))).metrics();
}

/** In the first process: the other processes of the instance, whose figures it gathers. */
export function gatherFrom(processes: () => ChildProcess[]): void {
  others = processes;
}

/** In the first process: a message from another process that is about metrics. */
export function onPeerMessage(peer: ChildProcess, message: Message): void {
  if (message?.type === ASK_ALL) reply(peer, ALL, message.id, allMetrics);
  else if (message?.type === OWN) answered(message);
}

/** In another process: answers the first's questions, and takes its answers. */
export function answerFirstProcess(): void {
  process.on("message", (message: Message) => {
    if (message?.type === ASK_OWN) reply(process, OWN, message.id, () => (metrics(), register.getMetricsAsJSON()));
    else if (message?.type === ALL) answered(message);
  });
}

/** The instance's metrics, from whichever process is asked. */
export function instanceMetrics(): Promise<string> {
  return process.send && process.env.GATEWAY_PROCESS_INDEX && process.env.GATEWAY_PROCESS_INDEX !== "0"
    ? (ask(process, ASK_ALL) as Promise<string>)
    : allMetrics();
}
