// `npm run bench:latency`: our gateway's latency overhead alone, at BENCH_RATE (200 req/s), in
// BENCH_ROUNDS (5) rounds that alternate the direct call, a bare node:http proxy (bench/bare-proxy.ts:
// what the extra hop alone costs) and ours, non-streamed (send to last byte) and streamed (send to
// first body byte). Each round's overhead is the target minus the direct call measured just before it; the medians over rounds cancel most of the machine's drift, which
// single 10 s rows of `npm run bench` do not. GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"
// profiles the gateway's processes (bench/top-functions.ts reads them).
//
//   npm run bench:latency
//   BENCH_ROUNDS=3 BENCH_SECONDS=5 npm run bench:latency
import { RATE, SECONDS, WARMUP_SECONDS } from "./lib/bench-env"; // first: sets the env
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runRate, type PidGroups } from "./lib/load";
import { startOurs, waitUntilRoutable } from "./lib/ours";
import { processTree } from "./lib/proc";
import { startBareProxy, startMock } from "./lib/servers";
import { stopChild } from "../scripts/lib/processes";
import { MOCK_MODEL } from "./mock-upstream";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const messages = [{ role: "user", content: "Say something short about latency." }];
const PLAIN = JSON.stringify({ model: MOCK_MODEL, messages, max_tokens: 16 });
const STREAM = JSON.stringify({ model: MOCK_MODEL, messages, max_tokens: 16, stream: true });
const json = { "content-type": "application/json" };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const mock = await startMock();
const bare = await startBareProxy(mock.baseUrl);
const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
try {
  const targets: Record<"direct" | "bare" | "ours", { url: string; headers: Record<string, string>; groups: PidGroups }> = {
    direct: { url: `${mock.baseUrl}/v1/chat/completions`, headers: { ...json, authorization: "Bearer mock-key" }, groups: { target: () => processTree([mock.child.proc.pid!]) } },
    bare: { url: `${bare.baseUrl}/v1/chat/completions`, headers: { ...json, authorization: "Bearer mock-key" }, groups: { target: () => processTree([bare.child.proc.pid!]) } },
    ours: { url: `${ours.stack.baseUrl}/v1/chat/completions`, headers: { ...json, authorization: `Bearer ${ours.apiKey}` }, groups: { target: ours.gatewayPids } },
  };
  await waitUntilRoutable(targets.ours.url, targets.ours.headers, PLAIN);
  const rows: Record<string, { p50: number[]; p99: number[] }> = {};
  const note = (name: string, p50: number, p99: number) => {
    rows[name] ??= { p50: [], p99: [] };
    rows[name].p50.push(p50);
    rows[name].p99.push(p99);
  };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const stream of [false, true]) {
      const measure = async (t: "direct" | "bare" | "ours") => {
        const r = await runRate({ url: targets[t].url, headers: targets[t].headers, body: stream ? STREAM : PLAIN, rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, stream }, targets[t].groups);
        if (r.failed) throw new Error(`${t}: ${r.failed} calls failed ${JSON.stringify(r.failures)}`);
        return stream ? r.firstByte : r.total;
      };
      const direct = await measure("direct");
      const floor = await measure("bare");
      const mine = await measure("ours");
      const kind = stream ? "stream first byte" : "non-streamed";
      note(`${kind}: direct`, direct.p50, direct.p99);
      note(`${kind}: bare proxy`, floor.p50, floor.p99);
      note(`${kind}: ours`, mine.p50, mine.p99);
      note(`${kind}: bare proxy overhead`, floor.p50 - direct.p50, floor.p99 - direct.p99);
      note(`${kind}: our overhead`, mine.p50 - direct.p50, mine.p99 - direct.p99);
      log(`round ${round} ${kind}: direct p50 ${direct.p50.toFixed(3)}, bare proxy ${floor.p50.toFixed(3)}, ours ${mine.p50.toFixed(3)} ms`);
    }
  }
  process.stdout.write(`\n${ROUNDS} rounds at ${RATE} req/s, ${SECONDS} s per row (ms; medians over rounds, and each round's figure):\n\n`);
  process.stdout.write("| row | p50 | p99 | p50 by round | p99 by round |\n|---|---|---|---|---|\n");
  for (const [name, r] of Object.entries(rows)) {
    const fmt = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(", ");
    process.stdout.write(`| ${name} | ${median(r.p50).toFixed(3)} | ${median(r.p99).toFixed(3)} | ${fmt(r.p50)} | ${fmt(r.p99)} |\n`);
  }
} finally {
  await ours.stack.stop();
  await stopChild(bare.child);
  await stopChild(mock.child);
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);
