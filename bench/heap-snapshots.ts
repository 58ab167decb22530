// `npm run bench:heap`: what each of the gateway's processes holds. Boots the gateway as
// bench/lib/ours.ts does, drives BENCH_RSS_REQUESTS (20,000) chat calls at BENCH_CONNECTIONS (64),
// then has every gateway process write a V8 heap snapshot (SIGUSR2) and reports, per process: RSS
// (its own memory and mapped files), V8's heap, and the heap's largest kinds of objects by their
// own size. The snapshots stay in a temp folder to open in Chrome's DevTools.
//
//   npm run bench:heap
//   BENCH_RSS_REQUESTS=100000 npm run bench:heap
//   BENCH_CAPTURE=1 npm run bench:heap      # the calls' workspace keeps their bodies (request log capture)
import "./lib/bench-env"; // first: sets the env
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCannon } from "./lib/load";
import { capturingWorkspaceKey, startOurs, waitUntilRoutable } from "./lib/ours";
import { rssMb, rssParts } from "./lib/proc";
import { startMock } from "./lib/servers";
import { stopChild } from "../scripts/lib/processes";
import { MOCK_MODEL } from "./mock-upstream";
import { kindsOf, readSnapshot } from "./lib/mix-heap";

const REQUESTS = Number(process.env.BENCH_RSS_REQUESTS ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const snapshots = mkdtempSync(path.join(tmpdir(), "gateway-heap-"));
process.env.GATEWAY_NODE_ARGS = `${process.env.GATEWAY_NODE_ARGS ?? ""} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}`.trim();
const body = JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "user", content: "Say something short about latency." }], max_tokens: 16 });

/** A snapshot's objects by kind (constructor, or V8's internal type), largest own size first. */
function summarize(file: string, top = 15): { totalMb: number; kinds: [string, number, number][] } {
  const { by, total } = kindsOf(readSnapshot(file));
  const kinds = [...by].sort((a, b) => b[1][0] - a[1][0]).slice(0, top).map(([k, [s, n]]) => [k, s / 1048576, n] as [string, number, number]);
  return { totalMb: total / 1048576, kinds };
}

const mock = await startMock();
const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
const lines: string[] = [];
try {
  const url = `${ours.stack.baseUrl}/v1/chat/completions`;
  const headers = { "content-type": "application/json", authorization: `Bearer ${ours.apiKey}` };
  await waitUntilRoutable(url, headers, body);
  if (process.env.BENCH_CAPTURE === "1") {
    headers.authorization = `Bearer ${await capturingWorkspaceKey()}`;
  }
  const r = await runCannon({ url, headers, body, connections: CONNECTIONS, amount: REQUESTS }, { target: ours.gatewayPids }, 0);
  log(`${r.requests} requests, ${r.errors} errors`);
  const pids = ours.gatewayPids();
  for (const pid of pids) process.kill(pid, "SIGUSR2");
  // A snapshot is written once its file has stopped growing for a few seconds (V8 takes a while before it writes a byte).
  let sizes = "";
  let still = 0;
  for (let i = 0; i < 180 && still < 3; i++) {
    await new Promise((res) => setTimeout(res, 1000));
    const files = readdirSync(snapshots);
    const each = files.map((f) => statSync(path.join(snapshots, f)).size);
    const now = files.map((f, j) => `${f}:${each[j]}`).join(",");
    still = files.length >= pids.length && each.every((b) => b > 0) && now === sizes ? still + 1 : 0;
    sizes = now;
  }
  lines.push(`### Heap of each gateway process after ${r.requests} calls (${new Date().toISOString()})`, "");
  for (const pid of pids) {
    const file = readdirSync(snapshots).find((f) => f.includes(`.${pid}.`));
    const { anon, file: mapped } = rssParts(pid);
    lines.push(`#### process ${pid}: RSS ${Math.round(rssMb([pid])[0]!)} MB (${Math.round(anon)} own, ${Math.round(mapped)} mapped files)`, "");
    if (!file) {
      lines.push("(no snapshot)", "");
      continue;
    }
    const s = summarize(path.join(snapshots, file));
    lines.push(`V8 heap ${s.totalMb.toFixed(1)} MB (snapshot ${path.join(snapshots, file)})`, "", "| kind | MB | count |", "|---|---|---|");
    for (const [k, mb, n] of s.kinds) lines.push(`| ${k.replace(/\|/g, "\\|")} | ${mb.toFixed(2)} | ${n} |`);
    lines.push("");
  }
} finally {
  await ours.stack.stop();
  await stopChild(mock.child);
  rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(`${lines.join("\n")}\n`);
process.exit(0);
