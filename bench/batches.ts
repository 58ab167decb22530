// `npm run bench:batches`: a batch of BENCH_BATCH_LINES (10,000) chat lines through the built-in
// node, run by the gateway's inline batch worker (BATCH_CONCURRENCY lines in flight), and what it
// does to live traffic meanwhile. Live calls (the instant mock, BENCH_RATE req/s) are measured in
// rows of BENCH_ROW_SECONDS (3): BENCH_ROWS (3) before the batch, as many as fit while it runs
// (only rows that ended before the batch did count as "during"), and BENCH_ROWS after it. The
// batch's lines per second are its lines over the wall time from create to `completed`.
//
//   npm run bench:batches
//   BENCH_BATCH_LINES=2000 npm run bench:batches
import { RATE } from "./lib/bench-env"; // first: sets the env
import "./lib/with-local-node";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runRate, type PidGroups } from "./lib/load";
import { startOurs, waitUntilRoutable } from "./lib/ours";
import { startMock } from "./lib/servers";
import { stopChild } from "../scripts/lib/processes";
import { createWorkspace } from "../server/onboarding/create-workspace";
import { MOCK_MODEL } from "./mock-upstream";

const LINES = Number(process.env.BENCH_BATCH_LINES ?? 10_000);
const ROW_SECONDS = Number(process.env.BENCH_ROW_SECONDS ?? 3);
const ROWS = Number(process.env.BENCH_ROWS ?? 3);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const f = (v: number) => v.toFixed(3);

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const mock = await startMock();
const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
const base = ours.stack.baseUrl;
const auth = { authorization: `Bearer ${ours.apiKey}` };
const json = { ...auth, "content-type": "application/json" };
// BENCH_BATCH_WORKSPACE=own: the batch is another workspace's (its own balance and credit leases)
// rather than the live calls' workspace's.
const OWN = process.env.BENCH_BATCH_WORKSPACE === "own";
const batchAuth = OWN ? { authorization: `Bearer ${(await createWorkspace({ name: "batches", credits: "1000000", withKey: true })).apiKey!.secret}` } : auth;
const batchJson = { ...batchAuth, "content-type": "application/json" };
const LIVE = JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "user", content: "Say something short about latency." }], max_tokens: 16 });
const liveUrl = `${base}/v1/chat/completions`;
const groups: PidGroups = { target: ours.gatewayPids, postgres: ours.postgresPids };

type Batch = { id: string; status: string; request_counts: { total: number; completed: number; failed: number }; in_progress_at: number | null; completed_at: number | null; cost: string };

async function api<T>(pathname: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${base}${pathname}`, init);
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${pathname}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

type Row = { label: string; p50: number; p90: number; p99: number; ok: number; cpu: number };
const rows: Row[] = [];
async function live(label: string): Promise<Row> {
  const r = await runRate({ url: liveUrl, headers: json, body: LIVE, rate: RATE, seconds: ROW_SECONDS, warmupSeconds: 0.5, stream: false }, groups);
  if (r.failed) throw new Error(`live calls ${label}: ${r.failed} failed ${JSON.stringify(r.failures)}`);
  const row = { label, p50: r.total.p50, p90: r.total.p90, p99: r.total.p99, ok: r.ok, cpu: (r.cpuMs.target ?? NaN) / (r.sent + r.warmup) };
  log(`live ${label}: p50 ${f(row.p50)} p99 ${f(row.p99)} ms`);
  return row;
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const line = (r: Row) => `| ${r.label} | ${f(r.p50)} | ${f(r.p90)} | ${f(r.p99)} | ${r.ok} | ${r.cpu.toFixed(2)} |`;
const summary = (label: string, rs: Row[]) => `| **${label}: median of ${rs.length} rows** | ${f(median(rs.map((r) => r.p50)))} | ${f(median(rs.map((r) => r.p90)))} | ${f(median(rs.map((r) => r.p99)))} | | |`;

try {
  await waitUntilRoutable(liveUrl, json, LIVE);
  await waitUntilRoutable(liveUrl, json, JSON.stringify({ model: "local-chat-sim", messages: [{ role: "user", content: "hi" }], max_tokens: 4 }));
  const lines = Array.from({ length: LINES }, (_, i) =>
    JSON.stringify({ custom_id: `line-${i}`, method: "POST", url: "/v1/chat/completions", body: { model: "local-chat-sim", messages: [{ role: "user", content: `Batch line ${i}: say something.` }], max_tokens: 16 } }),
  );
  const form = new FormData();
  form.set("purpose", "batch");
  form.set("file", new Blob([lines.join("\n") + "\n"], { type: "application/jsonl" }), "bench.jsonl");
  const file = await api<{ id: string; bytes: number }>("/v1/files", { method: "POST", headers: batchAuth, body: form });
  log(`uploaded ${LINES} lines (${file.bytes} bytes) as ${file.id}`);

  const before: Row[] = [];
  for (let i = 0; i < ROWS; i++) before.push(await live(`before the batch, row ${i + 1}`));
  const created = performance.now();
  let batch = await api<Batch>("/v1/batches", { method: "POST", headers: batchJson, body: JSON.stringify({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" }) });
  let ended = Infinity;
  const watch = (async () => {
    while (!["completed", "failed", "expired", "cancelled"].includes(batch.status)) {
      await new Promise((r) => setTimeout(r, 100));
      batch = await api<Batch>(`/v1/batches/${batch.id}`, { headers: batchAuth });
    }
    ended = performance.now();
  })();
  // Live rows while the batch runs; a row still running when the batch ended does not count.
  const during: Row[] = [];
  while (ended === Infinity) {
    const row = await live(`during the batch, row ${during.length + 1}`);
    if (ended === Infinity) during.push(row);
  }
  await watch;
  if (batch.status !== "completed") throw new Error(`the batch ended ${batch.status}`);
  const seconds = (ended - created) / 1000;
  log(`batch ${batch.id}: ${batch.request_counts.completed} lines in ${seconds.toFixed(1)} s`);
  const after: Row[] = [];
  for (let i = 0; i < ROWS; i++) after.push(await live(`after the batch, row ${i + 1}`));
  rows.push(...before, ...during, ...after);
  process.stdout.write(
    [
      `Batch bench, ${new Date().toISOString()}: ${LINES} chat lines (local-chat-sim, max_tokens 16) through the built-in node, ${OWN ? "in a workspace of its own" : "in the live calls' workspace"}; live calls to the instant mock at ${RATE} req/s, ${ROW_SECONDS} s rows.`,
      "",
      `Batch: ${batch.request_counts.completed} completed, ${batch.request_counts.failed} failed, ${seconds.toFixed(1)} s from create to completed: **${(batch.request_counts.completed / seconds).toFixed(0)} lines/s**; cost $${batch.cost}. ${during.length} live rows ran wholly during it.`,
      "",
      "| live calls | p50 ms | p90 ms | p99 ms | answered | gateway CPU ms/req (batch included) |",
      "|---|---|---|---|---|---|",
      ...rows.map(line),
      summary("before", before),
      summary("during", during),
      summary("after", after),
      "",
    ].join("\n"),
  );
} finally {
  await ours.stack.stop().catch(() => undefined);
  await stopChild(mock.child).catch(() => undefined);
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);
