// A miss's answer on its way to the caller, kept for the cache once it is whole: a JSON answer as
// it goes out, a stream after its last event (a stream that fails is never kept; one whose client
// left is read to its end and kept, like it is billed). The process's memory has it at once; the
// table (every other process and instance) a few milliseconds later, written behind the answer so
// a miss costs its caller no database write. What the call cost comes from the ledger's report of
// its charge, observed here on the way to the request's own observer.
import { env } from "../infra/env";
import type { CallObserver, ChargedCall } from "../kernel/call-observer";
import { EventStream } from "../kernel/event-stream";
import { wantText } from "../kernel/answer-text";
import { logFor } from "../infra/telemetry/log";
import { storeEntry, type CachedAnswer } from "./entries";

const log = logFor("response-cache");

/** Where a miss's answer goes: its key and scope, and for how long. */
export type FillTarget = { workspaceId: string; scope: string; hash: string; route: string; apiKeyId: string | null; ttlSeconds: number; replacing: boolean };

/** The request's observer, noting the charge of the call it passes on. */
export class ChargeWatch implements CallObserver {
  charge: ChargedCall | null = null;
  constructor(private readonly inner: CallObserver | undefined) {}
  charged(call: ChargedCall): void {
    this.charge = call;
    this.inner?.charged(call);
  }
  settled(cost: string): void {
    this.inner?.settled?.(cost);
  }
  usageWrite<T>(write: Promise<T>): Promise<T> {
    return this.inner ? this.inner.usageWrite(write) : write;
  }
}

/** Stores the answer behind the call; never fails it (a store that fails is logged). */
function keep(target: FillTarget, watch: ChargeWatch, answer: CachedAnswer, oversized = false): void {
  const charge = watch.charge;
  // Only an answer the ledger charged is kept (never one that failed or was refused).
  if (!charge || oversized) return;
  const entry = {
    workspaceId: target.workspaceId,
    scope: target.scope,
    hash: target.hash,
    route: target.route,
    apiKeyId: target.apiKeyId,
    modelId: charge.modelId,
    answer,
    inputTokens: charge.inputTokens,
    outputTokens: charge.outputTokens,
    cost: charge.cost,
    expiresAt: Date.now() + target.ttlSeconds * 1000,
  };
  storeEntry(entry, target.replacing).catch((err: unknown) => log.warn({ err }, "response cache: an answer could not be stored"));
}

async function* tapped(events: AsyncIterable<string>, done: (payloads: string[], oversized: boolean) => void): AsyncGenerator<string> {
  const payloads: string[] = [];
  let bytes = 2;
  for await (const payload of events) {
    if (bytes <= env.CACHE_MAX_ENTRY_BYTES) {
      payloads.push(payload);
      bytes += payload.length + 3;
    }
    yield payload;
  }
  done(payloads, bytes > env.CACHE_MAX_ENTRY_BYTES);
}

const isAsyncIterable = (v: unknown): v is AsyncIterable<string> => typeof v === "object" && v !== null && Symbol.asyncIterator in v;

/** The answer as the caller gets it (unchanged), kept for the cache once whole. */
export function fillFrom(answer: unknown, target: FillTarget, watch: ChargeWatch): unknown {
  if (answer instanceof EventStream) {
    const { named, done } = answer.options;
    return new EventStream(tapped(answer.events, (events, oversized) => keep(target, watch, { kind: "sse", events, named, done }, oversized)), answer.options);
  }
  if (isAsyncIterable(answer)) return tapped(answer, (events, oversized) => keep(target, watch, { kind: "sse", events, named: false, done: true }, oversized));
  // After the answer is on its way (the transport serialises it in this turn, and keeps the text
  // for the entry): the same object, never changed after.
  if (typeof answer === "object" && answer !== null) wantText(answer);
  setImmediate(() => keep(target, watch, { kind: "json", body: answer }));
  return answer;
}
