// `npm run bench`: our gateway against Portkey's OSS gateway, in one run on one machine. Starts
// an instant mock upstream, Portkey (from npm) in front of it and our gateway (booted as in
// production, with the mock as its only node), each in its own processes, and measures:
//   warm-up      BENCH_WARMUP_SECONDS (3) at BENCH_CONNECTIONS per target, non-streamed and (for
//                the targets that can) streamed, not measured
//   overhead     open-loop fixed rate (BENCH_RATE, 200 req/s), µs timing, target minus direct, in
//                BENCH_LATENCY_ROUNDS (3) rounds of direct, Portkey, ours; each figure is the median
//                over rounds of the target's p50 (p99) minus the direct call's measured just before
//                it, so the machine's drift between rows (its speed varies by half on this VM over
//                minutes) does not decide the result
//   streaming    time to first byte at the same rate, direct vs ours (and Portkey, if it can stream:
//                1.15.2 cannot on Node 20), in the same rounds
//   throughput   autocannon at BENCH_CONNECTIONS (64), CPU per request from /proc
//   memory       RSS after BENCH_RSS_REQUESTS (100,000) requests in total
// Prints markdown to stdout and writes the results as JSON under the OS temp dir.
//
//   npm run bench
//   BENCH_SECONDS=5 BENCH_RSS_REQUESTS=20000 npm run bench
//   BENCH_CPU_PROF=1 npm run bench      # CPU profiles of our gateway's processes
//   BENCH_BASELINE=write npm run bench  # the run becomes the committed baseline (bench/baseline.json)
import { CONNECTIONS, CPU_PROF, LATENCY_ROUNDS, RATE, RSS_REQUESTS, SECONDS, WARMUP_SECONDS } from "./lib/bench-env"; // first: sets the env
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { runCannon, runRate, type PidGroups } from "./lib/load";
import { startOurs, waitUntilRoutable } from "./lib/ours";
import { commandName, processTree, pssMb, rssMb } from "./lib/proc";
import { LABEL, renderReport, type BenchResults, type Target } from "./lib/report";
import { PORTKEY_VERSION, portkeyHeaders, startMock, startPortkey } from "./lib/servers";
import { stopChild } from "../scripts/lib/processes";
import { MOCK_LIMITED_PREFIX, MOCK_MODEL } from "./mock-upstream";
import { benchRoutes } from "./lib/bench-routes";
import pg from "pg";
import { UNIQUE } from "./load/fixed-rate";
import { topFunctions } from "./top-functions";
import { execFileSync } from "node:child_process";
import { BASELINE_FILE, comparisonTable, figuresOf, readBaseline, regressions, writeBaseline, type Figures, type Regression, type RowKind } from "./lib/baseline";

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const messages = [{ role: "user", content: "Say something short about latency." }];
const PLAIN = JSON.stringify({ model: MOCK_MODEL, messages, max_tokens: 16 });
const MISS_PLAIN = JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "user", content: `Say something short about latency. ${UNIQUE}` }], max_tokens: 16 });
const STREAM = JSON.stringify({ model: MOCK_MODEL, messages, max_tokens: 16, stream: true });
const json = { "content-type": "application/json" };
/** The miss row's plain body is a new prompt each time; the routes' rows name a route (bench/lib/bench-routes.ts) instead of the model. */
const bodyOf = (t: string, body: string) => {
  if (t === "miss" && body === PLAIN) return MISS_PLAIN;
  if (t === "routed" || t === "failover") return body.replace(JSON.stringify(MOCK_MODEL), JSON.stringify(t === "routed" ? "bench-route" : "bench-failover"));
  return body;
};
/** Our rows measured in every round and at full load, Portkey's and the direct call's beside them. */
const ROWS = ["direct", "portkey", "ours", "hit", "miss", "routed", "failover"] as const;

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const profileDir = CPU_PROF ? mkdtempSync(path.join(tmpdir(), "gateway-cpu-prof-")) : undefined;
const started: { stop: () => Promise<void> }[] = [];
const results: BenchResults = {
  date: new Date().toISOString(),
  machine: `${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}`,
  seconds: SECONDS, rate: RATE, connections: CONNECTIONS, portkeyVersion: PORTKEY_VERSION,
  overhead: [], streaming: [], throughput: {}, memory: {}, portkeyStreamProbe: "", profileDir,
};
type T = { url: string; headers: Record<string, string>; groups: PidGroups; unique?: boolean };

const baseline = readBaseline();
const WRITE_BASELINE = process.env.BENCH_BASELINE;
let figures: Figures = {};
let failed: Regression[] = [];
/** Measures the rows of these kinds again (Portkey's and ours); resolves with the run's results with those rows replaced. */
let measureAgain: (kinds: Set<RowKind>) => Promise<BenchResults> = async () => results;

try {
  const mock = await startMock();
  started.push({ stop: () => stopChild(mock.child) });
  const portkey = await startPortkey();
  started.push({ stop: () => stopChild(portkey.child) });
  const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, profileDir, log });
  started.push({ stop: () => ours.stack.stop() }); // the gateway writes its CPU profiles as it exits
  const targets: Record<Target, T> = {
    direct: { url: `${mock.baseUrl}/v1/chat/completions`, headers: { ...json, authorization: "Bearer mock-key" }, groups: { target: () => processTree([mock.child.proc.pid!]) } },
    portkey: { url: `${portkey.baseUrl}/v1/chat/completions`, headers: { ...json, ...portkeyHeaders(`${mock.baseUrl}/v1`) }, groups: { target: () => processTree([portkey.child.proc.pid!]) } },
    ours: { url: `${ours.stack.baseUrl}/v1/chat/completions`, headers: { ...json, authorization: `Bearer ${ours.apiKey}` }, groups: { target: ours.gatewayPids, postgres: ours.postgresPids } },
    // The response cache: every call of the bench is the same, so with `use` all but the first are hits;
    // the miss row sends a new prompt each time (MISS_PLAIN), so each looks up, calls the mock and stores its answer.
    hit: { url: `${ours.stack.baseUrl}/v1/chat/completions`, headers: { ...json, authorization: `Bearer ${ours.apiKey}`, "x-gateway-cache": "use" }, groups: { target: ours.gatewayPids, postgres: ours.postgresPids } },
    miss: { url: `${ours.stack.baseUrl}/v1/chat/completions`, headers: { ...json, authorization: `Bearer ${ours.apiKey}`, "x-gateway-cache": "use" }, groups: { target: ours.gatewayPids, postgres: ours.postgresPids }, unique: true },
    // Routes: the same call through a one-target route, and through a route whose first target answers 429.
    routed: { url: `${ours.stack.baseUrl}/v1/chat/completions`, headers: { ...json, authorization: `Bearer ${ours.apiKey}` }, groups: { target: ours.gatewayPids, postgres: ours.postgresPids } },
    failover: { url: `${ours.stack.baseUrl}/v1/chat/completions`, headers: { ...json, authorization: `Bearer ${ours.apiKey}` }, groups: { target: ours.gatewayPids, postgres: ours.postgresPids } },
  };
  const served: Record<Target, number> = { direct: 0, portkey: 0, ours: 0, hit: 0, miss: 0, routed: 0, failover: 0 };
  const rss = (t: "ours" | "portkey") => rssMb(targets[t].groups.target!());
  await waitUntilRoutable(targets.ours.url, targets.ours.headers, PLAIN);
  const routesDb = new pg.Client({ connectionString: ours.stack.databaseUrl });
  await routesDb.connect();
  await benchRoutes(routesDb, `${mock.baseUrl}${MOCK_LIMITED_PREFIX}`, (body) => waitUntilRoutable(targets.ours.url, targets.ours.headers, body));
  await routesDb.end();
  const probe = await fetch(targets.portkey.url, { method: "POST", headers: targets.portkey.headers, body: STREAM });
  const probeBody = (await probe.text()).slice(0, 120).replace(/\s+/g, " ");
  // Portkey 1.15.2 fails every streamed call on Node 20 ("TypeError: immutable" in its log): streams are compared only if it can.
  results.portkeyStreamProbe = probe.ok
    ? `Portkey ${PORTKEY_VERSION} on Node ${process.version} answered a streamed call with HTTP ${probe.status}: it is measured too.`
    : `Portkey ${PORTKEY_VERSION} on Node ${process.version} answered a streamed call with HTTP ${probe.status} (${probeBody}), so streams are compared against the direct call only.`;
  const streamTargets = probe.ok ? (["direct", "portkey", "ours"] as const) : (["direct", "ours"] as const);
  const boot = { ours: rss("ours"), portkey: rss("portkey") };
  log(`gateway processes: ${ours.gatewayPids().join(", ")}; boot RSS ours ${boot.ours.map((m) => m.toFixed(0)).join("+")} MB, Portkey ${boot.portkey.map((m) => m.toFixed(0)).join("+")} MB`);

  // Warm-up: JIT, pools and caches of every process of every target, closed loop, not measured;
  // streamed calls too for the targets that can stream (their code path is another one, and each
  // row's few connections may land on either of our processes).
  for (const t of ROWS) {
    const bodies = (streamTargets as readonly Target[]).includes(t) ? [PLAIN, STREAM] : [PLAIN];
    for (const body of bodies) {
      const w = await runCannon({ url: targets[t].url, headers: targets[t].headers, body: bodyOf(t, body), unique: targets[t].unique, connections: CONNECTIONS, seconds: WARMUP_SECONDS }, targets[t].groups, 0);
      served[t] += w.requests + w.discardedRequests;
    }
  }
  for (let round = 1; round <= LATENCY_ROUNDS; round++) {
    const plain: BenchResults["overhead"][number] = {};
    for (const t of ROWS) {
      const r = await runRate({ url: targets[t].url, headers: targets[t].headers, body: bodyOf(t, PLAIN), unique: targets[t].unique, rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, stream: false }, targets[t].groups);
      served[t] += r.sent + r.warmup + r.discardedRequests;
      plain[t] = r;
      log(`round ${round} overhead ${LABEL[t]}: p50 ${r.total.p50} p99 ${r.total.p99} ms, failed ${r.failed} ${JSON.stringify(r.failures)}`);
    }
    results.overhead.push(plain);
    const streamed: BenchResults["streaming"][number] = {};
    for (const t of streamTargets) {
      const r = await runRate({ url: targets[t].url, headers: targets[t].headers, body: STREAM, rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, stream: true }, targets[t].groups);
      served[t] += r.sent + r.warmup + r.discardedRequests;
      streamed[t] = r;
      log(`round ${round} streaming ${LABEL[t]}: first byte p50 ${r.firstByte.p50} p99 ${r.firstByte.p99} ms, failed ${r.failed} ${JSON.stringify(r.failures)}`);
    }
    results.streaming.push(streamed);
  }
  for (const t of ROWS) {
    const r = await runCannon({ url: targets[t].url, headers: targets[t].headers, body: bodyOf(t, PLAIN), unique: targets[t].unique, connections: CONNECTIONS, seconds: SECONDS }, targets[t].groups);
    served[t] += r.requests + r.discardedRequests;
    results.throughput[t] = r;
    log(`throughput ${LABEL[t]}: ${Math.round(r.rps)} req/s, ${r.errors} errors, CPU ${JSON.stringify(r.cpuMs)}`);
  }
  served.ours += served.hit + served.miss + served.routed + served.failover; // the same processes served the cache's and the routes' rows
  measureAgain = async (kinds) => {
    const again: BenchResults = { ...results, throughput: { ...results.throughput }, overhead: [...results.overhead], streaming: [...results.streaming] };
    if (kinds.has("throughput")) {
      for (const t of ["portkey", "ours", "hit", "miss"] as const) {
        again.throughput[t] = await runCannon({ url: targets[t].url, headers: targets[t].headers, body: bodyOf(t, PLAIN), unique: targets[t].unique, connections: CONNECTIONS, seconds: SECONDS }, targets[t].groups);
        log(`throughput again ${LABEL[t]}: ${Math.round(again.throughput[t]!.rps)} req/s`);
      }
    }
    // One more round of the direct call and ours; the overheads are the medians over every round.
    if (kinds.has("overhead") || kinds.has("streaming")) {
      const plain: BenchResults["overhead"][number] = {};
      const streamed: BenchResults["streaming"][number] = {};
      for (const t of ["direct", "ours"] as const) {
        plain[t] = await runRate({ url: targets[t].url, headers: targets[t].headers, body: PLAIN, rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, stream: false }, targets[t].groups);
        streamed[t] = await runRate({ url: targets[t].url, headers: targets[t].headers, body: STREAM, rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, stream: true }, targets[t].groups);
      }
      again.overhead.push(plain);
      again.streaming.push(streamed);
    }
    return again;
  };
  for (const t of ["portkey", "ours"] as const) {
    const remaining = RSS_REQUESTS - served[t];
    if (remaining >= CONNECTIONS) {
      log(`driving ${LABEL[t]} to ${RSS_REQUESTS} requests (${remaining} more)`);
      const r = await runCannon({ url: targets[t].url, headers: targets[t].headers, body: PLAIN, connections: CONNECTIONS, amount: remaining }, targets[t].groups, 0);
      served[t] += r.requests + r.discardedRequests;
      if (r.errors) log(`${r.errors} errors while driving ${LABEL[t]}`);
    }
    const pids = targets[t].groups.target!();
    const after = rssMb(pids);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const each = pids.map((pid, i) => `${commandName(pid)} ${Math.round(after[i]!)}`).sort((a, b) => Number(b.split(" ")[1]) - Number(a.split(" ")[1]));
    results.memory[t] = { served: served[t], processes: each.join(", "), bootMb: sum(boot[t]), afterMb: sum(after), largestMb: Math.max(...after), afterPssMb: sum(pssMb(pids)) };
  }
  // The guard: a figure worse than the baseline by more than the tolerance has its rows measured
  // again once; it fails the run if it is still worse (the better of the two measurements counts).
  figures = figuresOf(results);
  if (baseline && WRITE_BASELINE !== "write") {
    const first = regressions(baseline, figures);
    if (first.length) {
      log(`worse than the baseline: ${first.map((f) => `${f.name} (${Math.round(f.worseBy * 100)}%)`).join("; ")}: measuring those rows again`);
      const again = await measureAgain(new Set(first.map((f) => f.row)));
      const retried = figuresOf(again);
      for (const f of first) {
        const a = retried[f.name];
        const better = figures[f.name]!.better;
        if (a && (better === "higher" ? a.value > figures[f.name]!.value : a.value < figures[f.name]!.value)) figures[f.name] = a;
      }
    }
    failed = regressions(baseline, figures);
  }
} finally {
  for (const s of started.reverse()) await s.stop().catch((err: Error) => log(`stopping: ${err.message}`));
  rmSync(scratch, { recursive: true, force: true });
}

const guard = `\n\n### Against the baseline\n\n${comparisonTable(baseline, figures, failed)}`;
const profile = profileDir ? `\n\n### Top self-time functions of our gateway's processes (whole run, boot included)\n\n${topFunctions([profileDir], 20)}` : "";
const report = renderReport(results) + guard + profile;
const file = path.join(tmpdir(), `gateway-bench-${results.date.replace(/[:.]/g, "-")}.json`);
writeFileSync(file, JSON.stringify(results, null, 2));
process.stdout.write(`${report}\n\nResults as JSON: ${file}\n`);
if (WRITE_BASELINE === "write") {
  writeBaseline(figures, execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim(), results.date);
  log(`wrote ${BASELINE_FILE}`);
} else if (failed.length) {
  for (const f of failed) log(`REGRESSION: ${f.name}: ${f.now.toFixed(3)} against ${f.baseline.toFixed(3)} in the baseline (${Math.round(f.worseBy * 100)}% worse)`);
  process.exit(1);
}
process.exit(0);
