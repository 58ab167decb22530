// `npm run bench:after-quiet`: what the first calls after a quiet moment cost. Traffic is rarely
// steady: an app calls, stops for a few seconds, calls again. Against the instant mock, our
// gateway (as `npm start` boots it) gets 200 req/s for BENCH_SECONDS (10), then, for each gap of
// BENCH_GAPS (2,7,12) seconds, nothing for that long and then 2 s at 200 req/s again: the report
// gives the first 40 calls after each gap (p50, p90, max) against the steady rows. 5 s is when a
// node's server (the mock, as Node.js's default) closes idle connections, 4 s when a key's cache
// entry must be read again, 10 s when pg closed idle database connections by default.
import { SECONDS } from "./lib/bench-env"; // first: sets the env
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Pool } from "undici";
import { startOurs, waitUntilRoutable } from "./lib/ours";
import { startMock } from "./lib/servers";
import { summarize } from "./lib/stats";
import { stopChild } from "../scripts/lib/processes";
import { MOCK_MODEL } from "./mock-upstream";

const RATE = 200;
const GAPS = (process.env.BENCH_GAPS ?? "2,7,12").split(",").map(Number);
const FIRST = 40;
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const mock = await startMock();
const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
const body = JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "user", content: "Say something short about latency." }], max_tokens: 16 });
const headers = { "content-type": "application/json", authorization: `Bearer ${ours.apiKey}` };
// One client pool, kept across the gaps (64 connections, opened in the first phase): what is measured is the gateway's side.
const pool = new Pool(ours.stack.baseUrl, { connections: 64, keepAliveTimeout: 600_000 });

/** Open loop at RATE for `seconds`: each call's time from send to last byte (ms), in send order. */
async function phase(seconds: number): Promise<number[]> {
  const ms: number[] = new Array(Math.round(seconds * RATE));
  const start = performance.now();
  const calls: Promise<void>[] = [];
  for (let i = 0; i < ms.length; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait - 1));
    while (performance.now() < due) {
      /* the exact send time */
    }
    const t0 = performance.now();
    calls.push(
      pool.request({ path: "/v1/chat/completions", method: "POST", headers, body }).then(async (res) => {
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
        ms[i] = performance.now() - t0;
      }),
    );
  }
  await Promise.all(calls);
  return ms;
}

const f = (v: number) => v.toFixed(2);
const row = (label: string, ms: number[]) => {
  const s = summarize(ms.map((v) => v * 1000));
  return `| ${label} | ${ms.length} | ${f(s.p50)} | ${f(s.p90)} | ${f(s.p99)} | ${f(s.max)} |`;
};
try {
  await waitUntilRoutable(`${ours.stack.baseUrl}/v1/chat/completions`, headers, body);
  await phase(3); // warm-up
  const steady = await phase(SECONDS);
  const rows = [row(`steady, ${SECONDS} s`, steady)];
  for (const gap of GAPS) {
    await new Promise((r) => setTimeout(r, gap * 1000));
    const after = await phase(2);
    rows.push(row(`first ${FIRST} calls after ${gap} s of quiet`, after.slice(0, FIRST)));
    log(`after ${gap} s: first call ${f(after[0]!)} ms, max of the first ${FIRST} ${f(Math.max(...after.slice(0, FIRST)))} ms`);
  }
  process.stdout.write(
    [
      `After quiet moments, ${new Date().toISOString()}: our gateway at ${RATE} req/s against the instant mock, send to last byte (ms).`,
      "",
      "| calls | n | p50 | p90 | p99 | max |",
      "|---|---|---|---|---|---|",
      ...rows,
      "",
    ].join("\n"),
  );
} finally {
  await pool.close();
  await ours.stack.stop();
  await stopChild(mock.child);
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);
