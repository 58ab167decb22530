// Benchmark: what the gateway adds on top of a node. Boots its own stack (temp data dir, embedded
// PostgreSQL, the built-in node with zero simulated latency, the gateway) and measures, with
// autocannon, chat completions non-streaming and streaming, calling the node directly and
// through the gateway, at fixed rates and at the maximum.
//
//   npm run bench                       # all scenarios, 10 s each
//   BENCH_SECONDS=5 BENCH_RATES=100,500 npm run bench
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { request } from "undici";
import { db } from "../server/infra/db/client";
import { freePort } from "../server/infra/net/free-port";
import { createWorkspace } from "../server/identity/workspaces/create-workspace";
import { startStack } from "../scripts/lib/stack";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATES = (process.env.BENCH_RATES ?? "100,200,500,1000,max").split(",");
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const TTFB_SAMPLES = Number(process.env.BENCH_TTFB_SAMPLES ?? 300);

/** Time to the first body byte of sequential streaming calls: what buffering would show. */
async function firstByteTimes(url: string, key: string, body: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < TTFB_SAMPLES; i++) {
    const started = performance.now();
    const res = await request(url, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });
    for await (const _chunk of res.body) {
      times.push(performance.now() - started);
      break;
    }
    await res.body.dump();
  }
  return times.sort((a, b) => a - b);
}
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(2);

type Row = { target: string; mode: string; rate: string; rps: number; p50: number; p90: number; p99: number; max: number; errors: number; requests: number };

async function run(url: string, key: string, body: string, rate: string): Promise<autocannon.Result> {
  return autocannon({
    url,
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body,
    connections: rate === "max" ? CONNECTIONS : Math.min(CONNECTIONS, Math.max(8, Number(rate) / 10)),
    ...(rate === "max" ? {} : { overallRate: Number(rate) }),
    duration: SECONDS,
  });
}

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755);
process.env.LOCAL_NODE_LATENCY_MS = "0";
process.env.LOCAL_NODE_TOKEN_DELAY_MS = "0";
const stack = await startStack({
  dataDir: path.join(scratch, "data"),
  port: await freePort(),
  host: "127.0.0.1",
  distDir: ".next-test",
  role: "bench",
  stdio: "ignore",
  log: (l) => process.stderr.write(`[bench] ${l}\n`),
});
const rows: Row[] = [];
const ttfb: string[] = [];
try {
  const { apiKey } = await createWorkspace({ name: "bench", credits: "1000000", withKey: true });
  const node = await db.node.findUniqueOrThrow({ where: { name: "local" } });
  const nodeKey = (await import("node:fs")).readFileSync(path.join(scratch, "data", "local-node-key"), "utf8").trim();
  const targets = [
    { name: "node direct", url: `${node.baseUrl}/chat/completions`, key: nodeKey },
    { name: "gateway", url: `${stack.baseUrl}/v1/chat/completions`, key: apiKey!.secret },
  ];
  const messages = [{ role: "user", content: "Say something short about latency." }];
  const modes = {
    "non-streaming": JSON.stringify({ model: "local-chat-sim", messages, max_tokens: 16 }),
    streaming: JSON.stringify({ model: "local-chat-sim", messages, max_tokens: 16, stream: true }),
  };
  // Warm up both paths (caches, pools, JIT).
  for (const t of targets) await run(t.url, t.key, modes["non-streaming"], "200");
  for (const t of targets) {
    const times = await firstByteTimes(t.url, t.key, modes.streaming);
    ttfb.push(`| ${t.name} | ${times.length} | ${pct(times, 50)} | ${pct(times, 90)} | ${pct(times, 99)} |`);
  }
  for (const [mode, body] of Object.entries(modes)) {
    for (const rate of RATES) {
      for (const t of targets) {
        const r = await run(t.url, t.key, body, rate);
        const row: Row = {
          target: t.name,
          mode,
          rate,
          rps: Math.round(r.requests.average),
          p50: r.latency.p50,
          p90: r.latency.p90,
          p99: r.latency.p99,
          max: r.latency.max,
          errors: r.errors + r.timeouts + r.non2xx,
          requests: r.requests.total,
        };
        rows.push(row);
        process.stderr.write(`[bench] ${JSON.stringify(row)}\n`);
      }
    }
  }
} finally {
  await stack.stop();
  rmSync(scratch, { recursive: true, force: true });
}

const lines = [
  "| mode | target rate | target | achieved req/s | p50 ms | p90 ms | p99 ms | max ms | errors | requests |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ...rows.map((r) => `| ${r.mode} | ${r.rate} | ${r.target} | ${r.rps} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${r.errors} | ${r.requests} |`),
];
process.stdout.write(`${lines.join("\n")}\n\nTime to first byte, sequential streaming calls:\n\n| target | calls | p50 ms | p90 ms | p99 ms |\n|---|---|---|---|---|\n${ttfb.join("\n")}\n`);
process.exit(0);
