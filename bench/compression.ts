// `npm run bench:compression`: what compressing JSON answers costs and saves, in one run. Boots
// the instant mock upstream and our gateway as `npm run bench` does (the mock as its only node),
// then measures, in BENCH_ROUNDS (3) interleaved rounds, each answer asked for without and with
// Accept-Encoding:
//   small chat answer (~400 bytes, never compressed): throughput at BENCH_CONNECTIONS (64) and
//     latency at BENCH_RATE (200 req/s, µs timing), which must match within the noise
//   large embeddings answer (64 vectors of 1536 floats, ~1.3 MB of JSON): bytes on the wire,
//     throughput and latency at BENCH_EMBED_CONNECTIONS (16), latency at BENCH_EMBED_RATE (10
//     req/s), and the gateway's CPU per request; identity, gzip and brotli
// Figures are the medians over rounds. Prints markdown to stdout.
//
//   npm run bench:compression
//   BENCH_ROUNDS=1 BENCH_SECONDS=2 npm run bench:compression
import { CONNECTIONS, RATE } from "./lib/bench-env"; // first: sets the env
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { stopChild } from "../scripts/lib/processes";
import { MOCK_EMBEDDING_MODEL, MOCK_MODEL } from "./mock-upstream";

// Rows are short and many: a busy machine is waited for only briefly, and a noisy row is
// reported (the "other load" column), not measured again.
process.env.BENCH_QUIET_WAIT ??= "5";
process.env.BENCH_RETRIES ??= "0";
const { runCannon, runRate } = await import("./lib/load");
const { startOurs, waitUntilRoutable } = await import("./lib/ours");
const { startMock } = await import("./lib/servers");

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const EMBED_CONNECTIONS = Number(process.env.BENCH_EMBED_CONNECTIONS ?? 16);
const EMBED_RATE = Number(process.env.BENCH_EMBED_RATE ?? 10);
const EMBED_INPUTS = 64;
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const CHAT = JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "user", content: "Say something short about latency." }], max_tokens: 16 });
const EMBED = JSON.stringify({ model: MOCK_EMBEDDING_MODEL, input: Array.from({ length: EMBED_INPUTS }, (_, i) => `sentence ${i}`), encoding_format: "float" });
/** What OpenAI's SDKs send through fetch over https; over plain http fetch offers gzip and deflate only. */
const CODINGS = { identity: undefined, gzip: "gzip, deflate", br: "gzip, deflate, br" } as const;
type Coding = keyof typeof CODINGS;

const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};

/** One call on a fresh connection: the body's bytes as sent, and the coding it came in. */
function onTheWire(url: string, headers: Record<string, string>, body: string): Promise<{ bytes: number; coding: string; status: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers, agent: false }, (res) => {
      let bytes = 0;
      res.on("data", (c: Buffer) => (bytes += c.length));
      res.on("end", () => resolve({ bytes, coding: String(res.headers["content-encoding"] ?? "identity"), status: res.statusCode! }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

type Row = { rps: number[]; p50: number[]; p99: number[]; cpuUs: number[]; other: number[] };
const rows = new Map<string, Row>();
function note(name: string, values: { rps?: number; p50: number; p99: number; cpuUs: number; other: number }): void {
  let row = rows.get(name);
  if (!row) rows.set(name, (row = { rps: [], p50: [], p99: [], cpuUs: [], other: [] }));
  row.rps.push(values.rps ?? NaN);
  row.p50.push(values.p50);
  row.p99.push(values.p99);
  row.cpuUs.push(values.cpuUs);
  row.other.push(values.other);
}

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const mock = await startMock();
const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
const wire: Record<Coding, { bytes: number; coding: string }> = {} as never;
try {
  const base = { "content-type": "application/json", authorization: `Bearer ${ours.apiKey}` };
  const headersFor = (coding: Coding): Record<string, string> => (CODINGS[coding] ? { ...base, "accept-encoding": CODINGS[coding] } : base);
  const chatUrl = `${ours.stack.baseUrl}/v1/chat/completions`;
  const embedUrl = `${ours.stack.baseUrl}/v1/embeddings`;
  await waitUntilRoutable(chatUrl, base, CHAT);
  await waitUntilRoutable(embedUrl, base, EMBED);
  for (const coding of ["identity", "gzip", "br"] as const) {
    const w = await onTheWire(embedUrl, headersFor(coding), EMBED);
    if (w.status !== 200) throw new Error(`embeddings answered HTTP ${w.status}`);
    wire[coding] = w;
  }
  const chatWire = await Promise.all((["identity", "br"] as const).map((c) => onTheWire(chatUrl, headersFor(c), CHAT)));
  log(`embeddings on the wire: ${JSON.stringify(wire)}; chat: ${JSON.stringify(chatWire)}`);
  const groups = { target: ours.gatewayPids };
  // Warm-up of every path on every process, not measured.
  for (const coding of ["identity", "br"] as const) await runCannon({ url: chatUrl, headers: headersFor(coding), body: CHAT, connections: CONNECTIONS, seconds: 2 }, groups, 0);
  for (const coding of ["identity", "gzip", "br"] as const) await runCannon({ url: embedUrl, headers: headersFor(coding), body: EMBED, connections: EMBED_CONNECTIONS, seconds: 1 }, groups, 0);

  for (let round = 1; round <= ROUNDS; round++) {
    for (const coding of ["identity", "br"] as const) {
      const label = coding === "identity" ? "without Accept-Encoding" : "with `gzip, deflate, br`";
      const t = await runCannon({ url: chatUrl, headers: headersFor(coding), body: CHAT, connections: CONNECTIONS, seconds: SECONDS }, groups);
      if (t.errors) throw new Error(`chat ${coding}: ${t.errors} errors`);
      note(`small chat, ${CONNECTIONS} connections, ${label}`, { rps: t.rps, p50: t.p50, p99: t.p99, cpuUs: (t.cpuMs.target! * 1000) / t.requests, other: t.foreignBusy });
      const r = await runRate({ url: chatUrl, headers: headersFor(coding), body: CHAT, rate: RATE, seconds: SECONDS, warmupSeconds: 1, stream: false }, groups);
      if (r.failed) throw new Error(`chat ${coding}: ${r.failed} failed ${JSON.stringify(r.failures)}`);
      note(`small chat, ${RATE} req/s, ${label}`, { p50: r.total.p50, p99: r.total.p99, cpuUs: (r.cpuMs.target! * 1000) / r.sent, other: r.foreignBusy });
      log(`round ${round} chat ${coding}: ${Math.round(t.rps)} req/s; at ${RATE} req/s p50 ${r.total.p50} p99 ${r.total.p99} ms`);
    }
    for (const coding of ["identity", "gzip", "br"] as const) {
      const t = await runCannon({ url: embedUrl, headers: headersFor(coding), body: EMBED, connections: EMBED_CONNECTIONS, seconds: SECONDS }, groups);
      if (t.errors) throw new Error(`embeddings ${coding}: ${t.errors} errors`);
      note(`embeddings, ${EMBED_CONNECTIONS} connections, ${coding}`, { rps: t.rps, p50: t.p50, p99: t.p99, cpuUs: (t.cpuMs.target! * 1000) / t.requests, other: t.foreignBusy });
      const r = await runRate({ url: embedUrl, headers: headersFor(coding), body: EMBED, rate: EMBED_RATE, seconds: SECONDS, warmupSeconds: 1, stream: false }, groups);
      if (r.failed) throw new Error(`embeddings ${coding}: ${r.failed} failed ${JSON.stringify(r.failures)}`);
      note(`embeddings, ${EMBED_RATE} req/s, ${coding}`, { p50: r.total.p50, p99: r.total.p99, cpuUs: (r.cpuMs.target! * 1000) / r.sent, other: r.foreignBusy });
      log(`round ${round} embeddings ${coding}: ${t.rps.toFixed(1)} req/s; at ${EMBED_RATE} req/s p50 ${r.total.p50} p99 ${r.total.p99} ms`);
    }
  }
} finally {
  await ours.stack.stop();
  await stopChild(mock.child);
  rmSync(scratch, { recursive: true, force: true });
}

const out: string[] = [];
out.push(`${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}; ${ROUNDS} rounds of ${SECONDS} s rows; medians over rounds.`, "");
out.push(`Embeddings answer (${EMBED_INPUTS} vectors of 1536 floats) on the wire:`, "", "| asked | sent as | bytes | of identity |", "|---|---|---|---|");
for (const coding of ["identity", "gzip", "br"] as const) {
  const w = wire[coding];
  out.push(`| ${CODINGS[coding] ?? "(no Accept-Encoding)"} | ${w.coding} | ${w.bytes.toLocaleString("en")} | ${((w.bytes / wire.identity.bytes) * 100).toFixed(0)}% |`);
}
out.push("", "| row | req/s | p50 ms | p99 ms | gateway CPU µs/req | other load | req/s by round |", "|---|---|---|---|---|---|---|");
for (const [name, r] of rows) {
  const rps = median(r.rps);
  const fmt = (v: number, d: number) => (Number.isFinite(v) ? v.toFixed(d) : "");
  out.push(`| ${name} | ${fmt(rps, 0)} | ${median(r.p50).toFixed(3)} | ${median(r.p99).toFixed(3)} | ${median(r.cpuUs).toFixed(0)} | ${Math.round(Math.max(...r.other) * 100)}% | ${r.rps.every(Number.isFinite) ? r.rps.map((x) => x.toFixed(0)).join(", ") : ""} |`);
}
process.stdout.write(`\n${out.join("\n")}\n`);
process.exit(0);
