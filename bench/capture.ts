// `npm run bench:capture`: what keeping request and answer bodies in the request log costs a call.
// One gateway (booted as in production, the instant mock as its node), two workspaces: one with
// capture off (the default), one with it on (32 KiB per body, one redaction pattern). Alternates
// the two in BENCH_ROUNDS (3) rounds at BENCH_RATE (200 req/s), non-streamed and streamed, then
// measures each one's throughput at BENCH_CONNECTIONS (64), with the gateway's CPU per request.
//
//   npm run bench:capture
//   BENCH_SECONDS=5 npm run bench:capture
import { CONNECTIONS, RATE, SECONDS, WARMUP_SECONDS } from "./lib/bench-env"; // first: sets the env
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCannon, runRate } from "./lib/load";
import { capturingWorkspaceKey, startOurs, waitUntilRoutable } from "./lib/ours";
import { startMock } from "./lib/servers";
import { stopChild } from "../scripts/lib/processes";
import { MOCK_MODEL } from "./mock-upstream";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const messages = [{ role: "system", content: "Answer briefly. The account is acct-123456." }, { role: "user", content: "Say something short about latency." }];
const PLAIN = JSON.stringify({ model: MOCK_MODEL, messages, max_tokens: 16 });
const STREAM = JSON.stringify({ model: MOCK_MODEL, messages, max_tokens: 16, stream: true });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const f = (v: number) => v.toFixed(3);

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const mock = await startMock();
const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
try {
  const capturedKey = await capturingWorkspaceKey();
  const url = `${ours.stack.baseUrl}/v1/chat/completions`;
  const headers = {
    off: { "content-type": "application/json", authorization: `Bearer ${ours.apiKey}` },
    on: { "content-type": "application/json", authorization: `Bearer ${capturedKey}` },
  };
  await waitUntilRoutable(url, headers.off, PLAIN);
  await waitUntilRoutable(url, headers.on, PLAIN);
  const groups = { target: ours.gatewayPids, postgres: ours.postgresPids };
  const rows: Record<string, number[]> = {};
  const note = (name: string, v: number) => (rows[name] ??= []).push(v);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const stream of [false, true]) {
      for (const mode of ["off", "on"] as const) {
        const r = await runRate({ url, headers: headers[mode], body: stream ? STREAM : PLAIN, rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, stream }, groups);
        if (r.failed) throw new Error(`capture ${mode}: ${r.failed} calls failed ${JSON.stringify(r.failures)}`);
        const kind = stream ? "streamed, whole stream" : "non-streamed";
        note(`${kind}, capture ${mode}: p50`, r.total.p50);
        note(`${kind}, capture ${mode}: p99`, r.total.p99);
        log(`round ${round} ${kind} capture ${mode}: p50 ${r.total.p50} p99 ${r.total.p99} ms`);
      }
    }
  }
  const throughput: string[] = [];
  for (const mode of ["off", "on"] as const) {
    const r = await runCannon({ url, headers: headers[mode], body: PLAIN, connections: CONNECTIONS, seconds: SECONDS }, groups);
    const cpu = (r.cpuMs.target ?? NaN) / r.requests;
    const pg = (r.cpuMs.postgres ?? NaN) / r.requests;
    throughput.push(`| capture ${mode} | ${Math.round(r.rps)} | ${r.errors} | ${r.p50} | ${r.p99} | ${cpu.toFixed(2)} | ${pg.toFixed(2)} |`);
    log(`throughput capture ${mode}: ${Math.round(r.rps)} req/s`);
  }
  process.stdout.write(
    [
      `Capture bench, ${new Date().toISOString()}: ${ROUNDS} rounds at ${RATE} req/s, ${SECONDS} s rows; medians over rounds (ms).`,
      "",
      "| row | median over rounds | by round |",
      "|---|---|---|",
      ...Object.entries(rows).map(([name, xs]) => `| ${name} | ${f(median(xs))} | ${xs.map(f).join(", ")} |`),
      "",
      `Throughput at ${CONNECTIONS} connections (autocannon, non-streamed, ${SECONDS} s):`,
      "",
      "| workspace | req/s | errors | p50 ms | p99 ms | gateway CPU ms/req | PostgreSQL CPU ms/req |",
      "|---|---|---|---|---|---|---|",
      ...throughput,
      "",
    ].join("\n"),
  );
} finally {
  await ours.stack.stop().catch(() => undefined);
  await stopChild(mock.child).catch(() => undefined);
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);
