// Open-loop load at a fixed rate: request i is sent at start + i/rate whether or not earlier ones
// have completed (a slow target cannot slow the load down and hide its own latency). Each
// request is timed with process.hrtime.bigint from the moment it is handed to the socket pool
// to its first body byte and to its last byte, in microseconds.
import { Pool } from "undici";
import { summarize, type Summary } from "../lib/stats";

export type RateSpec = {
  kind: "rate";
  url: string;
  headers: Record<string, string>;
  body: string;
  rate: number;
  seconds: number;
  warmupSeconds: number;
  stream: boolean;
  /** Each request's body has UNIQUE replaced by a number of its own (every call a new request: cache misses). */
  unique?: boolean;
};

export type RateResult = {
  /** Requests sent in the measured phase, and before it to warm up (not measured). */
  sent: number;
  warmup: number;
  ok: number;
  failed: number;
  /** Whole response, send to last byte (ms, microsecond resolution). */
  total: Summary;
  /** Send to first body byte (ms). */
  firstByte: Summary;
  /** Largest delay between a request's scheduled and actual send time (ms): the generator's own lag. */
  maxLagMs: number;
  achievedRate: number;
  failures: Record<string, number>;
};

const now = () => process.hrtime.bigint();

/** The placeholder a `unique` spec's body carries, and a number no other request of the run has. */
export const UNIQUE = "__UNIQUE__";
let sequence = 0;
export const uniqueId = () => `${process.pid}-${Date.now()}-${sequence++}`;
const usSince = (t: bigint) => Number(now() - t) / 1000;

async function one(pool: Pool, path: string, spec: RateSpec, totals: number[], firsts: number[], failures: Record<string, number>): Promise<boolean> {
  const started = now();
  try {
    const body = spec.unique ? spec.body.replace(UNIQUE, uniqueId()) : spec.body;
    const res = await pool.request({ path, method: "POST", headers: spec.headers, body });
    let first = -1;
    let tail = "";
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (first < 0) first = usSince(started);
      if (spec.stream) tail = (tail + chunk.toString("utf8")).slice(-64);
    }
    const total = usSince(started);
    const complete = !spec.stream || tail.includes("[DONE]");
    if (res.statusCode !== 200 || !complete) {
      const why = res.statusCode !== 200 ? `HTTP ${res.statusCode}` : "stream without [DONE]";
      failures[why] = (failures[why] ?? 0) + 1;
      return false;
    }
    totals.push(total);
    firsts.push(first < 0 ? total : first);
    return true;
  } catch (err) {
    const why = (err as { code?: string }).code ?? (err as Error).message;
    failures[why] = (failures[why] ?? 0) + 1;
    return false;
  }
}

/** Sends `rate` requests a second for `seconds`; resolves when every request sent has finished. */
async function phase(pool: Pool, path: string, spec: RateSpec, seconds: number, totals: number[], firsts: number[], failures: Record<string, number>) {
  const count = Math.round(spec.rate * seconds);
  const intervalNs = 1e9 / spec.rate;
  const start = now();
  const pending: Promise<boolean>[] = [];
  let maxLag = 0;
  let i = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const elapsed = Number(now() - start);
      while (i < count && i * intervalNs <= elapsed) {
        maxLag = Math.max(maxLag, (elapsed - i * intervalNs) / 1e6);
        pending.push(one(pool, path, spec, totals, firsts, failures));
        i++;
      }
      if (i >= count) return resolve();
      const waitMs = (i * intervalNs - Number(now() - start)) / 1e6;
      setTimeout(tick, Math.max(0, Math.floor(waitMs)));
    };
    tick();
  });
  const sendSeconds = Number(now() - start) / 1e9;
  const results = await Promise.all(pending);
  return { sent: count, ok: results.filter(Boolean).length, maxLag, sendSeconds };
}

/** `onStart` is called when the measured phase begins (after the warm-up). */
export async function fixedRate(spec: RateSpec, onStart: () => void = () => {}): Promise<RateResult> {
  const url = new URL(spec.url);
  const pool = new Pool(url.origin, { connections: 128, pipelining: 1, keepAliveTimeout: 60_000 });
  const path = url.pathname + url.search;
  const failures: Record<string, number> = {};
  if (spec.warmupSeconds > 0) await phase(pool, path, spec, spec.warmupSeconds, [], [], {});
  const totals: number[] = [];
  const firsts: number[] = [];
  onStart();
  const run = await phase(pool, path, spec, spec.seconds, totals, firsts, failures);
  await pool.close();
  const warmup = Math.round(spec.rate * spec.warmupSeconds);
  return {
    sent: run.sent,
    warmup,
    ok: run.ok,
    failed: run.sent - run.ok,
    total: summarize(totals),
    firstByte: summarize(firsts),
    maxLagMs: run.maxLag,
    achievedRate: run.sent / run.sendSeconds,
    failures,
  };
}
