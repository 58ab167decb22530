// `npm run bench:path`: what one call costs, in about two minutes. Boots the instant mock and our
// gateway (as bench/lib/ours.ts boots it, its embedded PostgreSQL with pg_stat_statements), then
// for each row drives BENCH_CONNECTIONS (64) closed-loop connections for BENCH_SECONDS (8) and
// reports: throughput; CPU per call of each gateway process and of PostgreSQL (every process the
// gateway starts); and the database work per 1,000 calls: statements by kind (pg_stat_statements),
// rows written per table and the index entries those writes made.
//
//   npm run bench:path
//   BENCH_PATH_ROWS=plain,stream BENCH_SECONDS=5 npm run bench:path
//   BENCH_PATH_ROWS=large,large-hit,large-miss npm run bench:path   # a coding agent's 34 KB call (not run by default)
//   BENCH_CPU_PROF=1 npm run bench:path     # + CPU profiles of the gateway's processes, top functions
import { CONNECTIONS, CPU_PROF, SECONDS as DEFAULT_SECONDS, WARMUP_SECONDS } from "./lib/bench-env"; // first: sets the env
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { runCannon } from "./lib/load";
import { capturingWorkspaceKey, startOurs, waitUntilRoutable } from "./lib/ours";
import { rssMb } from "./lib/proc";
import { startMock } from "./lib/servers";
import { dbActivity, dbWorkTable, STATS_SETTLE_MS, type DbWork } from "./lib/db-work";
import { stopChild } from "../scripts/lib/processes";
import { MOCK_LIMITED_PREFIX } from "./mock-upstream";
import { BODIES } from "./lib/path-rows";
import { benchRoutes } from "./lib/bench-routes";
import { topFunctions } from "./top-functions";

const SECONDS = Number(process.env.BENCH_SECONDS ?? Math.min(DEFAULT_SECONDS, 8));
const ROWS = (process.env.BENCH_PATH_ROWS ?? "plain,stream,hit,miss,capture,routed,failover").split(",").map((r) => r.trim()).filter(Boolean);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// pg_stat_statements, for the statements per call (bench/lib/db-work.ts).
process.env.EMBEDDED_POSTGRES_SETTINGS = "shared_preload_libraries=pg_stat_statements;pg_stat_statements.track=all";
const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const profileDir = CPU_PROF ? mkdtempSync(path.join(tmpdir(), "gateway-cpu-prof-")) : undefined;
const mock = await startMock();
const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, profileDir, log });
const db = new pg.Client({ connectionString: ours.stack.databaseUrl });

/** Each gateway process by its role (GATEWAY_PROCESS_INDEX / ROLE in its environment). */
function roleOf(pid: number): string {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    const get = (k: string) => env.find((e) => e.startsWith(`${k}=`))?.slice(k.length + 1);
    const role = get("GATEWAY_PROCESS_ROLE");
    const index = get("GATEWAY_PROCESS_INDEX") ?? "0";
    return role ? `${role} process` : `process ${index}`;
  } catch {
    return `pid ${pid}`;
  }
}

type Row = { row: string; requests: number; rps: number; errors: number; p50: number; p99: number; cpu: Record<string, number>; db: DbWork; rssMb: number };
const results: Row[] = [];
try {
  await db.connect();
  await db.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  const url = `${ours.stack.baseUrl}/v1/chat/completions`;
  const auth = { "content-type": "application/json", authorization: `Bearer ${ours.apiKey}` };
  await waitUntilRoutable(url, auth, BODIES.plain!.body);
  const capturedKey = await capturingWorkspaceKey();
  if (ROWS.includes("routed") || ROWS.includes("failover")) await benchRoutes(db, `${mock.baseUrl}${MOCK_LIMITED_PREFIX}`, (body) => waitUntilRoutable(url, auth, body));
  const pids = ours.gatewayPids();
  const groups: Record<string, () => number[]> = { PostgreSQL: ours.postgresPids };
  for (const pid of pids) groups[roleOf(pid)] = () => [pid];
  log(`gateway processes: ${pids.map((p) => `${p} (${roleOf(p)})`).join(", ")}`);
  for (const row of ROWS) {
    const spec = BODIES[row];
    if (!spec) throw new Error(`unknown row ${row}: one of ${Object.keys(BODIES).join(", ")}`);
    const key = row === "capture" ? capturedKey : ours.apiKey;
    const load = { url, headers: { ...auth, authorization: `Bearer ${key}`, ...spec.headers }, body: spec.body, unique: spec.unique, connections: CONNECTIONS };
    await runCannon({ ...load, seconds: WARMUP_SECONDS }, {}, 0);
    await new Promise((r) => setTimeout(r, STATS_SETTLE_MS)); // the warm-up's writes are in, and counted
    const before = await dbActivity(db);
    const r = await runCannon({ ...load, seconds: SECONDS }, groups);
    await new Promise((r) => setTimeout(r, STATS_SETTLE_MS)); // the writers commit behind the answers, and backends report their counts
    // A row measured again (others took the CPU) did its database work twice: every call it sent counts.
    const work = await (await dbActivity(db)).since(before, r.requests + r.discardedRequests);
    const cpu = Object.fromEntries(Object.entries(r.cpuMs).map(([k, ms]) => [k, ms / r.requests]));
    const rss = rssMb(ours.gatewayPids()).reduce((a, b) => a + b, 0);
    results.push({ row, requests: r.requests, rps: r.rps, errors: r.errors, p50: r.p50, p99: r.p99, cpu, db: work, rssMb: rss });
    const gatewayCpu = Object.entries(cpu).filter(([k]) => k !== "PostgreSQL" && k !== "load generator").reduce((a, [, v]) => a + v, 0);
    log(`${row}: ${Math.round(r.rps)} req/s, ${r.errors} errors, CPU ms/call gateway ${gatewayCpu.toFixed(3)} + PostgreSQL ${(cpu.PostgreSQL ?? 0).toFixed(3)}; ${work.statementsPer1000.toFixed(0)} statements, ${work.rowsWrittenPer1000.toFixed(0)} rows, ${work.indexEntriesPer1000.toFixed(0)} index entries per 1,000 calls`);
  }
} finally {
  await db.end().catch(() => undefined);
  await ours.stack.stop();
  await stopChild(mock.child);
  rmSync(scratch, { recursive: true, force: true });
}

const f = (n: number, d = 3) => n.toFixed(d);
const lines: string[] = [];
lines.push(`### The request path, ${new Date().toISOString()} (${CONNECTIONS} connections, ${SECONDS} s per row)`, "");
const procs = [...new Set(results.flatMap((r) => Object.keys(r.cpu)))].filter((k) => k !== "load generator" && k !== "PostgreSQL").sort();
lines.push(`| row | req/s | errors | p50 ms | p99 ms | ${procs.map((p) => `CPU ms/call ${p}`).join(" | ")} | CPU ms/call PostgreSQL | CPU ms/call in all | statements / 1k calls | rows written / 1k | index entries / 1k | RSS MB |`);
lines.push(`|${"---|".repeat(11 + procs.length)}`);
for (const r of results) {
  const own = procs.reduce((a, p) => a + (r.cpu[p] ?? 0), 0);
  const all = own + (r.cpu.PostgreSQL ?? 0);
  lines.push(`| ${r.row} | ${Math.round(r.rps)} | ${r.errors} | ${r.p50} | ${r.p99} | ${procs.map((p) => f(r.cpu[p] ?? 0)).join(" | ")} | ${f(r.cpu.PostgreSQL ?? 0)} | ${f(all)} | ${Math.round(r.db.statementsPer1000)} | ${Math.round(r.db.rowsWrittenPer1000)} | ${Math.round(r.db.indexEntriesPer1000)} | ${Math.round(r.rssMb)} |`);
}
for (const r of results) lines.push("", `#### ${r.row}: database work per 1,000 calls`, "", dbWorkTable(r.db));
if (profileDir) lines.push("", "### Top self-time functions of the gateway's processes (whole run, boot included)", "", topFunctions([profileDir], 25));
const file = path.join(tmpdir(), `gateway-path-${Date.now()}.json`);
writeFileSync(file, JSON.stringify(results, null, 2));
process.stdout.write(`${lines.join("\n")}\n\nResults as JSON: ${file}\n`);
process.exit(0);
