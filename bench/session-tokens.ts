// `npm run bench:sessions`: what a session token costs on the request path against a workspace
// API key, in one run. Boots our gateway as production does (bench/lib/ours.ts) in front of the
// instant mock upstream, mints session tokens, and measures each credential at a fixed rate
// (BENCH_RATE, 200 req/s), open loop, µs timing, in BENCH_ROUNDS (5) interleaved rounds:
//   direct          the mock itself
//   key             a workspace API key (no plan)
//   token           a session token of a plan without limits
//   token + limits  a session token of a plan with rpm, tpm, concurrency and a daily cap (high
//                   enough never to refuse): the limits and budget path on every call
// Reports the median over rounds of each percentile, and the token paths minus the key path (the
// median over rounds of each round's difference). The credentials' order rotates every round.
//
//   npm run bench:sessions
//   BENCH_SECONDS=5 BENCH_ROUNDS=5 npm run bench:sessions
import { RATE, SECONDS, WARMUP_SECONDS } from "./lib/bench-env"; // first: sets the env
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { createPlan } from "../server/identity/plans/manage-plans";
import { stopChild } from "../scripts/lib/processes";
import { runCannon, runRate, type PidGroups } from "./lib/load";
import { startOurs, waitUntilRoutable } from "./lib/ours";
import { processTree } from "./lib/proc";
import { startMock } from "./lib/servers";
import { ms3 } from "./lib/stats";
import { MOCK_MODEL } from "./mock-upstream";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const PLAIN = JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "user", content: "Say something short about latency." }], max_tokens: 16 });
const json = { "content-type": "application/json" };
const TARGETS = ["direct", "key", "token", "token + limits"] as const;
type Target = (typeof TARGETS)[number];
type T = { url: string; headers: Record<string, string>; groups: PidGroups };

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-sessions-"));
chmodSync(scratch, 0o755);
const stops: (() => Promise<void>)[] = [];
const p50: Record<Target, number[]> = { direct: [], key: [], token: [], "token + limits": [] };
const p99: Record<Target, number[]> = { direct: [], key: [], token: [], "token + limits": [] };

async function mint(base: string, apiKey: string, plan: string): Promise<string> {
  const res = await fetch(`${base}/v1/sessions`, { method: "POST", headers: { ...json, authorization: `Bearer ${apiKey}` }, body: JSON.stringify({ plan, subject: "bench-user" }) });
  if (!res.ok) throw new Error(`minting failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

try {
  const mock = await startMock();
  stops.push(() => stopChild(mock.child));
  const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
  stops.push(() => ours.stack.stop());
  const base = ours.stack.baseUrl;
  const plain = await createPlan(ours.workspaceId, { name: "no limits", max_ttl_seconds: 86_400 });
  const limited = await createPlan(ours.workspaceId, { name: "limits", rpm: 1_000_000, tpm: 1_000_000_000, concurrency: 100_000, daily_cap: "1000000", max_ttl_seconds: 86_400 });
  const url = `${base}/v1/chat/completions`;
  const as = (credential: string): T => ({ url, headers: { ...json, authorization: `Bearer ${credential}` }, groups: { target: ours.gatewayPids } });
  const targets: Record<Target, T> = {
    direct: { url: `${mock.baseUrl}/v1/chat/completions`, headers: { ...json, authorization: "Bearer mock-key" }, groups: { target: () => processTree([mock.child.proc.pid!]) } },
    key: as(ours.apiKey),
    token: as(await mint(base, ours.apiKey, plain.id)),
    "token + limits": as(await mint(base, ours.apiKey, limited.id)),
  };
  await waitUntilRoutable(url, targets.key.headers, PLAIN);
  for (const t of TARGETS) await runCannon({ url: targets[t].url, headers: targets[t].headers, body: PLAIN, connections: 16, seconds: WARMUP_SECONDS }, targets[t].groups, 0);
  const gateway = TARGETS.filter((t) => t !== "direct");
  for (let round = 1; round <= ROUNDS; round++) {
    // The mock first, then the gateway's credentials in an order that rotates each round, so no
    // credential is always measured right after the same one.
    const order = ["direct" as const, ...gateway.map((_, i) => gateway[(i + round - 1) % gateway.length]!)];
    for (const t of order) {
      const r = await runRate({ url: targets[t].url, headers: targets[t].headers, body: PLAIN, rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, stream: false }, targets[t].groups);
      if (r.failed) throw new Error(`${t}: ${r.failed} calls failed: ${JSON.stringify(r.failures)}`);
      p50[t].push(r.total.p50);
      p99[t].push(r.total.p99);
      log(`round ${round} ${t}: p50 ${ms3(r.total.p50)} p99 ${ms3(r.total.p99)} ms (machine busy ${Math.round(r.machineBusy * 100)}%, others ${Math.round(r.foreignBusy * 100)}%)`);
    }
  }
} finally {
  for (const stop of stops.reverse()) await stop().catch((err: Error) => log(`stopping: ${err.message}`));
  rmSync(scratch, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** Per round, a credential minus the key (the rounds' drift cancels out); the median over rounds. */
const minusKey = (pick: Record<Target, number[]>, t: Target) => median(pick[t].map((v, i) => v - pick.key[i]!));
const rows = TARGETS.map((t) => {
  const over = (pick: Record<Target, number[]>) => (t === "direct" ? "—" : `+${ms3(median(pick[t]) - median(pick.direct))}`);
  const vsKey = (pick: Record<Target, number[]>) => (t.startsWith("token") ? `${ms3(minusKey(pick, t))}` : "—");
  return `| ${t} | ${ms3(median(p50[t]))} | ${ms3(median(p99[t]))} | ${over(p50)} | ${over(p99)} | ${vsKey(p50)} | ${vsKey(p99)} |`;
});
process.stdout.write(
  [
    `Session tokens against API keys, ${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version};`,
    `${RATE} req/s for ${SECONDS} s per run, ${ROUNDS} interleaved rounds; medians over the rounds of each percentile, and of each round's difference to the key (ms).`,
    "",
    "| credential | p50 | p99 | overhead p50 | overhead p99 | minus key p50 | minus key p99 |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n"),
);
process.exit(0);
