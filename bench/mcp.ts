// `npm run bench:mcp`: what a tool call through /mcp adds over calling the tool's server directly,
// in one run. Boots our gateway as production does (bench/lib/ours.ts) and, in a process of its
// own, a stand-in MCP server made with the official SDK (tests/mcp-fixtures.ts: Streamable HTTP, a
// session per client, an `echo` tool), registered twice in the bench's workspace: `kit` (its tools
// free) and `paid` (its `echo` priced with setToolPrice, so each call is held, charged and
// recorded through the ledger). Also, in another process, a bare node:http proxy in front of the
// stand-in that forwards every request as it is (bench/bare-proxy.ts's floor, for MCP's headers):
// what the extra hop alone costs. One SDK client (Client + StreamableHTTPClientTransport) per
// row, each connected once (its session open): to the stand-in, the proxy, and the gateway's /mcp
// (one per gateway row) with the workspace's API key. After BENCH_WARMUP_CALLS (500) `tools/call`s
// per row, BENCH_ROUNDS (7) rounds of BENCH_CALLS (300) sequential calls per row, the rows taken
// in turn (one call of each, the order rotating every call), so that whatever else the machine
// does in a round weighs on every row alike; each call timed with performance.now() around
// `client.callTool`:
//   direct        `echo` at the stand-in
//   bare proxy    `echo` through the bare proxy
//   free tool     `kit__echo` through the gateway
//   priced tool   `paid__echo` through the gateway
// Reports each round's median and p99, the medians over rounds, and what each row adds: per round,
// its median minus the direct median of the same round, the median over rounds. Then, in blocks of
// BENCH_CALLS calls of one row, the CPU per call of the hop's processes (the gateway's, or the
// proxy) and of PostgreSQL; and the other load on the machine in each round. Exits 1 when a
// gateway row adds more than BENCH_MCP_LIMIT_MS (1) at the median.
//
//   npm run bench:mcp
//   BENCH_ROUNDS=3 BENCH_CALLS=200 npm run bench:mcp
//   BENCH_CPU_PROF=1 npm run bench:mcp   # + CPU profiles of the gateway's processes, top functions
import { CPU_PROF } from "./lib/bench-env"; // first: sets the env
import { fork } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Pool } from "undici";
import { startStandInMcpServer } from "../tests/mcp-fixtures";
import type { Child } from "../scripts/lib/processes";

// This file is also the bench's two servers, each run in a child process of its own: the stand-in,
// and the bare proxy in front of it. Each tells the bench its URL once it listens.
const ROLE = process.env.BENCH_MCP_ROLE;
if (ROLE === "stand-in") {
  const standIn = await startStandInMcpServer();
  // It keeps every call it received (for tests): not this bench's memory to grow.
  setInterval(() => void (standIn.calls.length = 0), 1000).unref();
  process.send!({ url: standIn.url });
} else if (ROLE === "proxy") {
  const upstream = new URL(process.env.BENCH_MCP_UPSTREAM!);
  const pool = new Pool(upstream.origin, { connections: 8 });
  const HOP = new Set(["host", "connection", "keep-alive", "transfer-encoding", "content-length"]);
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP.has(name))) as Record<string, string>;
    const answer = await pool.request({ method: req.method as "POST", path: req.url!, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    res.writeHead(answer.statusCode, Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP.has(name))) as Record<string, string>);
    for await (const chunk of answer.body) res.write(chunk);
    res.end();
  });
  server.listen(0, "127.0.0.1", () => process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}` }));
}
if (ROLE) await new Promise(() => undefined); // a server: runs until stopped

/** Runs this file as one of the bench's servers; resolves with it and the URL it serves. */
async function startRole(role: string, env: Record<string, string> = {}): Promise<{ child: Child; url: string }> {
  const proc = fork(fileURLToPath(import.meta.url), [], { execArgv: ["--import", "tsx"], env: { ...process.env, ...env, BENCH_MCP_ROLE: role }, stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const child: Child = { name: role, proc, exited: new Promise((resolve) => proc.once("exit", (code) => resolve(code))) };
  const url = await new Promise<string>((resolve, reject) => {
    proc.once("message", (m: { url: string }) => resolve(m.url));
    void child.exited.then((code) => reject(new Error(`the ${role} exited (${code}) before it listened`)));
  });
  return { child, url };
}

// The stand-in listens on 127.0.0.1, which the outbound guard refuses unless the operator allows
// it; set before any server module parses the environment (they are imported below).
process.env.OUTBOUND_ALLOW = "127.0.0.1";
const { startOurs } = await import("./lib/ours");
const { cpuSince, cpuSnapshot, machineCpu, processTree } = await import("./lib/proc");
const { waitForQuiet } = await import("./lib/quiet");
const { startMock } = await import("./lib/servers");
const { ms3 } = await import("./lib/stats");
const { stopChild } = await import("../scripts/lib/processes");
const { cliActor } = await import("../server/audit/actor");
const { addServer, setToolPrice } = await import("../server/mcp/registry/registry-store");
const { topFunctions } = await import("./top-functions");

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const WARMUP = Number(process.env.BENCH_WARMUP_CALLS ?? 500);
const LIMIT_MS = Number(process.env.BENCH_MCP_LIMIT_MS ?? 1);
const PRICE = "0.001";
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p99Of = (sorted: Float64Array) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;

const ROWS = ["direct", "bare proxy", "free tool", "priced tool"] as const;
type Row = (typeof ROWS)[number];
const GATEWAY_ROWS: Row[] = ["free tool", "priced tool"];
/** A row: the client that calls, the tool's name, and the processes of its hop (none for the direct call). */
type Target = { client: Client; tool: string; hop: () => number[] };
/** A row in one round: the median and p99 of its calls (ms). */
type Timing = { p50: number; p99: number };
/** A row's CPU per call (ms) in a block of its calls alone: its hop's processes, PostgreSQL. */
type Cpu = { hopCpu: number; postgresCpu: number };

/**
 * The SDK client's transport passes one AbortSignal (its own, for close()) to every fetch, and
 * Node's fetch leaves a listener on it per request until the request is collected: thousands on
 * one signal after a warm-up, each new one added past them, and a MaxListenersExceededWarning
 * (an Error and its stack) per call past 1,500. The POSTs go without it (the bench aborts none);
 * the GET stream keeps it, so that close() ends it.
 */
const postWithoutSignal: typeof fetch = (input, init) => fetch(input, init?.method === "POST" ? { ...init, signal: undefined } : init);

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "bench-mcp", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: postWithoutSignal }));
  return client;
}

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-mcp-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const profileDir = CPU_PROF ? mkdtempSync(path.join(tmpdir(), "gateway-cpu-prof-")) : undefined;
const stops: (() => Promise<void>)[] = [];
const timings = Object.fromEntries(ROWS.map((row) => [row, [] as Timing[]])) as Record<Row, Timing[]>;
const cpu = {} as Record<Row, Cpu>;
const others: number[] = []; // per round, the share of the machine other processes used
let chargedNote = "";

try {
  const standIn = await startRole("stand-in");
  stops.push(() => stopChild(standIn.child));
  const proxy = await startRole("proxy", { BENCH_MCP_UPSTREAM: standIn.url });
  stops.push(() => stopChild(proxy.child));
  const mock = await startMock(); // the node bench/lib/ours.ts registers; no call goes to it
  stops.push(() => stopChild(mock.child));
  const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, profileDir, log });
  stops.push(() => ours.stack.stop());
  const actor = cliActor();
  await addServer(actor, ours.workspaceId, { name: "kit", url: standIn.url });
  await addServer(actor, ours.workspaceId, { name: "paid", url: standIn.url });
  await setToolPrice(actor, ours.workspaceId, "paid", "echo", PRICE);

  const direct = await connect(standIn.url);
  const proxied = await connect(proxy.url);
  const gateway = await connect(`${ours.stack.baseUrl}/mcp`, { authorization: `Bearer ${ours.apiKey}` });
  const gatewayPaid = await connect(`${ours.stack.baseUrl}/mcp`, { authorization: `Bearer ${ours.apiKey}` });
  stops.push(async () => void (await Promise.all([direct, proxied, gateway, gatewayPaid].map((c) => c.close()))));
  const targets: Record<Row, Target> = {
    direct: { client: direct, tool: "echo", hop: () => [] },
    "bare proxy": { client: proxied, tool: "echo", hop: () => [proxy.child.proc.pid!] },
    "free tool": { client: gateway, tool: "kit__echo", hop: ours.gatewayPids },
    "priced tool": { client: gatewayPaid, tool: "paid__echo", hop: ours.gatewayPids },
  };
  const listed = (await gateway.listTools()).tools.map((t) => t.name);
  if (!listed.includes("kit__echo") || !listed.includes("paid__echo")) throw new Error(`the gateway lists ${listed.join(", ")}`);

  const call = async (t: Target, i: number) => {
    const result = await t.client.callTool({ name: t.tool, arguments: { text: `call ${i}` } });
    if (result.isError) throw new Error(`${t.tool}: ${JSON.stringify(result.content)}`);
  };
  /** One round: CALLS calls of every row, one of each in turn, the order rotating every call. */
  const round = async (): Promise<{ times: Record<Row, Float64Array>; others: number }> => {
    const times = Object.fromEntries(ROWS.map((row) => [row, new Float64Array(CALLS)])) as Record<Row, Float64Array>;
    const m0 = machineCpu();
    const all0 = cpuSnapshot(processTree([process.pid]));
    for (let i = 0; i < CALLS; i++) {
      for (let k = 0; k < ROWS.length; k++) {
        const row = ROWS[(i + k) % ROWS.length]!;
        const started = performance.now();
        await call(targets[row], i);
        times[row][i] = performance.now() - started;
      }
    }
    const m1 = machineCpu();
    const bench = cpuSince(all0, processTree([process.pid])); // this process and all it started
    const span = m1.totalMs - m0.totalMs;
    return { times, others: span > 0 ? Math.max(0, m1.busyMs - m0.busyMs - bench) / span : 0 };
  };
  /** CPU per call of a row's hop and of PostgreSQL, over CALLS calls of that row alone. */
  const cpuOf = async (row: Row): Promise<Cpu> => {
    const t = targets[row];
    const hop0 = cpuSnapshot(t.hop());
    const pg0 = cpuSnapshot(ours.postgresPids());
    for (let i = 0; i < CALLS; i++) await call(t, i);
    return { hopCpu: cpuSince(hop0, t.hop()) / CALLS, postgresCpu: cpuSince(pg0, ours.postgresPids()) / CALLS };
  };

  for (const row of ROWS) for (let i = 0; i < WARMUP; i++) await call(targets[row], i);
  for (let r = 1; r <= ROUNDS; r++) {
    await waitForQuiet(log);
    const { times, others: load } = await round();
    others.push(load);
    for (const row of ROWS) {
      const sorted = times[row].sort();
      const t: Timing = { p50: sorted[CALLS >> 1]!, p99: p99Of(sorted) };
      timings[row].push(t);
      log(`round ${r} ${row}: p50 ${ms3(t.p50)} p99 ${ms3(t.p99)} ms`);
    }
    log(`round ${r}: others ${Math.round(load * 100)}%`);
  }
  await waitForQuiet(log);
  for (const row of ROWS) {
    cpu[row] = await cpuOf(row);
    log(`CPU of ${row}: hop ${ms3(cpu[row].hopCpu)} ms/call, PostgreSQL ${ms3(cpu[row].postgresCpu)} ms/call`);
  }
  const { db } = await import("../server/infra/db/client");
  // Charges are committed behind the answers: the last ones are given a few seconds to arrive.
  const made = WARMUP + (ROUNDS + 1) * CALLS;
  const countCharged = () => db.usageEvent.count({ where: { workspaceId: ours.workspaceId } });
  let charged = await countCharged();
  for (const until = Date.now() + 10_000; charged < made && Date.now() < until; charged = await countCharged()) await new Promise((r) => setTimeout(r, 200));
  chargedNote = `Usage events of the priced tool at the end of the run: ${charged.toLocaleString("en")}, of ${made.toLocaleString("en")} priced calls made.`;
} finally {
  for (const stop of stops.reverse()) await stop().catch((err: Error) => log(`stopping: ${err.message}`));
  rmSync(scratch, { recursive: true, force: true });
}

const fmt = (xs: number[]) => xs.map(ms3).join(", ");
/** Per round, the row's figure minus the direct call's of the same round; the median over rounds. */
const added = (row: Row, pick: (t: Timing) => number) => median(timings[row].map((t, i) => pick(t) - pick(timings.direct[i]!)));
const lines = [
  `MCP tool calls, ${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version};`,
  `${ROUNDS} rounds of ${CALLS} sequential calls per row, the rows taken in turn, after ${WARMUP} per row for warm-up; ms. Other load by round: ${others.map((x) => `${Math.round(x * 100)}%`).join(", ")}.`,
  "",
  "| row | p50 (median of rounds) | p99 (median of rounds) | added p50 | added p99 | p50 by round | p99 by round | hop CPU ms/call | PostgreSQL CPU ms/call |",
  "|---|---|---|---|---|---|---|---|---|",
  ...ROWS.map((row) => {
    const t = timings[row];
    const sign = (v: number) => `${v >= 0 ? "+" : ""}${ms3(v)}`;
    const over = row === "direct" ? ["—", "—"] : [sign(added(row, (x) => x.p50)), sign(added(row, (x) => x.p99))];
    const hop = row === "direct" ? ["—", "—"] : [ms3(cpu[row].hopCpu), ms3(cpu[row].postgresCpu)];
    return `| ${row} | ${ms3(median(t.map((x) => x.p50)))} | ${ms3(median(t.map((x) => x.p99)))} | ${over.join(" | ")} | ${fmt(t.map((x) => x.p50))} | ${fmt(t.map((x) => x.p99))} | ${hop.join(" | ")} |`;
  }),
  "",
  chargedNote,
];
if (profileDir) lines.push("", `### Top self-time functions of the gateway's processes (whole run, boot included; profiles kept in ${profileDir})`, "", topFunctions([profileDir], 30));
process.stdout.write(`${lines.join("\n")}\n`);

const over = GATEWAY_ROWS.filter((row) => added(row, (x) => x.p50) > LIMIT_MS);
for (const row of over) process.stderr.write(`[bench] FAILED: the ${row} row adds ${ms3(added(row, (x) => x.p50))} ms at the median, above ${LIMIT_MS} ms\n`);
process.exit(over.length ? 1 : 0);
