// `npm run bench:x402`: what paying a chat call with x402 costs on the request path against a
// workspace API key, in one run. Boots our gateway as production does (bench/lib/ours.ts) with
// X402_NETWORK=local (the local anvil chain beside it, the built-in facilitator), in front of the
// instant mock upstream. Closed loop, one call at a time (a payment is signed per call, so the
// open-loop load tools that replay one request do not apply), BENCH_CALLS (100) calls per
// credential per round, BENCH_ROUNDS (5) rounds, the order alternating each round:
//   key    a workspace API key
//   x402   a payment signed beforehand by the official client (upto, Permit2): the gateway
//          claims its nonce, has the facilitator verify it (chain reads), serves, settles it on
//          chain (a transaction, mined at once by the local chain) and records it
// Also reported: the client's signing of one payment (not part of the gateway's latency).
//
//   npm run bench:x402
import "./lib/x402-env";
import { WARMUP_SECONDS } from "./lib/bench-env"; // sets the env
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { privateKeyToAccount } from "viem/accounts";
import { stopChild } from "../scripts/lib/processes";
import { startOurs, waitUntilRoutable } from "./lib/ours";
import { startMock } from "./lib/servers";
import { ms3, summarize } from "./lib/stats";
import { MOCK_MODEL } from "./mock-upstream";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 100);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const BODY = JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "user", content: "Say something short about latency." }], max_tokens: 16 });
const json = { "content-type": "application/json" };

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-x402-"));
chmodSync(scratch, 0o755);
const stops: (() => Promise<void>)[] = [];
const samples = { key: [] as number[], x402: [] as number[], sign: [] as number[] };
/** The gateway's own account of an x402 call (its Server-Timing header), µs per phase. */
const phases: Record<string, number[]> = { "x402-verify": [], "x402-settle": [], "x402-record": [] };
const p50 = { key: [] as number[], x402: [] as number[] };

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { method: "POST", headers, body: BODY });
  await res.arrayBuffer();
  const us = (performance.now() - t0) * 1000;
  for (const m of (res.headers.get("server-timing") ?? "").matchAll(/([\w-]+);dur=([\d.]+)/g)) phases[m[1]!]?.push(Number(m[2]) * 1000);
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  return us;
}

try {
  const mock = await startMock();
  stops.push(() => stopChild(mock.child));
  const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
  stops.push(() => ours.stack.stop());
  const wallet = ours.stack.x402Wallet;
  if (!wallet) throw new Error("x402 is not on in the bench's gateway");
  const url = `${ours.stack.baseUrl}/v1/chat/completions`;
  const keyHeaders = { ...json, authorization: `Bearer ${ours.apiKey}` };
  await waitUntilRoutable(url, keyHeaders, BODY);
  const account = privateKeyToAccount(wallet.payerPrivateKey as `0x${string}`);
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(account)).register("eip155:*", new UptoEvmScheme(account));
  const required = decodePaymentRequiredHeader((await fetch(url, { method: "POST", headers: json, body: BODY })).headers.get("payment-required")!);
  /** Signs `n` payments for the call (timing each signature). */
  const sign = async (n: number) => {
    const headers: Record<string, string>[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const payload = await client.createPaymentPayload(required);
      samples.sign.push((performance.now() - t0) * 1000);
      headers.push({ ...json, "payment-signature": encodePaymentSignatureHeader(payload) });
    }
    return headers;
  };
  // Warm-up: both paths, WARMUP_SECONDS' worth at most.
  const warmEnd = Date.now() + WARMUP_SECONDS * 1000;
  for (const h of await sign(20)) if (Date.now() < warmEnd) await timed(url, h);
  for (let i = 0; i < 50 && Date.now() < warmEnd + 2000; i++) await timed(url, keyHeaders);
  samples.sign.length = 0;
  for (const list of Object.values(phases)) list.length = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const paid = await sign(CALLS);
    const order = round % 2 ? (["key", "x402"] as const) : (["x402", "key"] as const);
    for (const what of order) {
      const round_: number[] = [];
      for (let i = 0; i < CALLS; i++) round_.push(await timed(url, what === "key" ? keyHeaders : paid[i]!));
      samples[what].push(...round_);
      p50[what].push(summarize(round_).p50);
      log(`round ${round} ${what}: p50 ${ms3(summarize(round_).p50)} p99 ${ms3(summarize(round_).p99)} ms`);
    }
  }
} finally {
  for (const stop of stops.reverse()) await stop().catch((err: Error) => log(`stopping: ${err.message}`));
  rmSync(scratch, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const key = summarize(samples.key);
const x402 = summarize(samples.x402);
const sign = summarize(samples.sign);
process.stdout.write(
  [
    `x402 against API keys on a chat call, ${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version};`,
    `${CALLS} sequential calls per credential per round, ${ROUNDS} rounds (ms, all calls of all rounds; "minus key" is the median over rounds of each round's p50 difference).`,
    "",
    "| path | p50 | p90 | p99 | mean | minus key p50 |",
    "|---|---|---|---|---|---|",
    `| key | ${ms3(key.p50)} | ${ms3(key.p90)} | ${ms3(key.p99)} | ${ms3(key.mean)} | — |`,
    `| x402 (verify + settle) | ${ms3(x402.p50)} | ${ms3(x402.p90)} | ${ms3(x402.p99)} | ${ms3(x402.mean)} | +${ms3(median(p50.x402.map((v, i) => v - p50.key[i]!)))} |`,
    ...Object.entries(phases).map(([phase, list]) => {
      const s = summarize(list);
      return `| gateway: ${phase.slice(5)} | ${ms3(s.p50)} | ${ms3(s.p90)} | ${ms3(s.p99)} | ${ms3(s.mean)} | — |`;
    }),
    `| client: signing one payment | ${ms3(sign.p50)} | ${ms3(sign.p90)} | ${ms3(sign.p99)} | ${ms3(sign.mean)} | — |`,
    "",
  ].join("\n"),
);
process.exit(0);
