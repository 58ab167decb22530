// `npm run bench:logs`: the request log and the usage summaries at a million rows. Starts an
// embedded PostgreSQL with the migrations applied (no gateway process), makes the RequestLog
// day partitions with maintainPartitions, fills 1,000,000 RequestLog rows and 1,000,000
// UsageEvent rows over 30 days in SQL (INSERT ... SELECT generate_series), ANALYZEs, then times
// the functions the dashboard and the CLI call (listLogs, usageSummary, usageEvents) for the
// biggest workspace, BENCH_RUNS times each (after a few warm-up calls), and prints p50/p95/p99 as
// a markdown table. Exits 1 when any p95 reaches BENCH_LIMIT_MS (200 ms); for those queries it
// prints EXPLAIN (ANALYZE, BUFFERS) of the exact statements they sent.
//
// The data: 50 workspaces, the first holding ~40% of the rows, the rest spread evenly; 20 models;
// 200 API keys (53 in the big workspace, 3 in each other); 90% 2xx, 8% 4xx (six error codes),
// 2% 5xx (three codes); 15% of the calls made with a session token (10 plans, 2,000 subjects);
// tags {team: one of 10, feature: one of 20} on half the rows.
//
//   npm run bench:logs
//   BENCH_ROWS=1000000 BENCH_RUNS=200 BENCH_LIMIT_MS=200 BENCH_QUERY_BUDGET_S=60 npm run bench:logs
import "./lib/bench-env"; // first: sets the env
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import pg from "pg";
import { disconnectDb, useDatabase } from "../server/infra/db/client";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../server/infra/db/embedded";
import { applyMigrations } from "../server/infra/db/migrate";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../server/generated/prisma/client";
import { usageEvents } from "../server/ledger/usage/usage-events";
import type { UsageFilter } from "../server/ledger/usage/usage-filter";
import { usageSummary } from "../server/ledger/usage/usage-summary";
import { ROLLUP_CTES, ROLLUP_REBUILD } from "../server/ledger/usage/rollup-sql";
import { applyMovements, usageMovement } from "../server/ledger/movements";
import { db } from "../server/infra/db/client";
import { listLogs, type LogFilter } from "../server/request-log/list-logs";
import { maintainPartitions } from "../server/request-log/partitions";
import { cpuSnapshot, cpuSince, machineCpu, processTree } from "./lib/proc";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WARMUP = 5;
const LIMIT_MS = Number(process.env.BENCH_LIMIT_MS ?? 200);
/** A query still running after this many seconds of measuring stops early (its runs are counted). */
const QUERY_BUDGET_S = Number(process.env.BENCH_QUERY_BUDGET_S ?? 60);
const DAYS = 30;
const DAY_MS = 86_400_000;
const CHUNK = 100_000;
const BIG = "ws-00";

const log = (line: string) => process.stderr.write(`[bench] ${new Date().toISOString().slice(11, 19)} ${line}\n`);

// The statements the measured functions send, kept to EXPLAIN the slow ones: the process's Prisma
// client is made here, with query events on, before any server module makes its own.
type Sent = { query: string; params: string };
let capture: Sent[] | null = null;
function useCapturingClient(url: string): void {
  useDatabase(url);
  const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 10 }), log: [{ emit: "event", level: "query" }] });
  client.$on("query", (e) => capture?.push({ query: e.query, params: e.params }));
  (globalThis as unknown as { gatewayDb?: PrismaClient }).gatewayDb = client;
}

// ---------------------------------------------------------------------------------------------
// The data, made by PostgreSQL itself. `r(n)` is a fresh uniform integer in [0, n).

const MODELS = 20;
const CODES_4XX = ["invalid_request_error:400", "invalid_api_key:401", "insufficient_quota:402", "model_not_allowed:403", "model_not_found:404", "rate_limit_exceeded:429"];
const CODES_5XX = ["upstream_error:502", "upstream_timeout:504", "no_node_available:503"];
const sqlList = (xs: string[]) => `ARRAY[${xs.map((x) => `'${x}'`).join(", ")}]`;

/**
 * One row's random draws, computed once per row (a LATERAL subquery), then shaped by both tables'
 * inserts. Row n's time grows with n (as calls arrive, so a table's pages follow time as in
 * production), with a jitter within its slot.
 */
const DRAWS = (from: number, to: number) => `
  FROM generate_series(${from}, ${to}) AS g
  CROSS JOIN LATERAL (SELECT
    g AS n,
    random() AS u_ws, random() AS u_time, random() AS u_status, random() AS u_cred, random() AS u_tag,
    (random() * ${MODELS})::int % ${MODELS} AS m, (random() * 1000)::int AS k, (random() * 100000)::int AS big,
    (random() * 2000)::int % 2000 AS subj, (random() * 10)::int % 10 AS plan, (random() * 10)::int % 10 AS team,
    (random() * 20)::int % 20 AS feat, (random() * 6)::int % 6 AS c4, (random() * 3)::int % 3 AS c5,
    (random() * 49)::int % 49 AS other
  ) AS d
  CROSS JOIN LATERAL (SELECT
    CASE WHEN d.u_ws < 0.4 THEN '${BIG}' ELSE 'ws-' || lpad((1 + d.other)::text, 2, '0') END AS ws,
    (now() AT TIME ZONE 'UTC') - (${ROWS} - d.n + d.u_time) / ${ROWS}.0 * interval '${DAYS} days' AS at,
    CASE WHEN d.u_status < 0.90 THEN NULL WHEN d.u_status < 0.98 THEN (${sqlList(CODES_4XX)})[1 + d.c4] ELSE (${sqlList(CODES_5XX)})[1 + d.c5] END AS coded,
    d.u_cred < 0.15 AS session,
    CASE WHEN d.u_tag < 0.5 THEN jsonb_build_object('team', 'team-' || d.team, 'feature', 'feature-' || d.feat) END AS tags
  ) AS w`;
/** The workspace's keys: 53 in the big one, 3 in each other (200 in all). */
const KEY = `w.ws || '-key-' || (d.k % CASE WHEN w.ws = '${BIG}' THEN 53 ELSE 3 END)`;
const MODEL = `'model-' || lpad(d.m::text, 2, '0')`;

const LOG_INSERT = (from: number, to: number) => `
  INSERT INTO "RequestLog" ("id", "createdAt", "workspaceId", "method", "route", "model", "nodeId", "credential", "apiKeyId", "planId",
    "subject", "payer", "status", "errorCode", "durationMs", "upstreamMs", "firstByteMs", "inputTokens", "outputTokens", "cost",
    "usageEstimated", "cache", "tags", "clientIp", "userAgent")
  SELECT 'req_' || lpad(d.n::text, 8, '0'), w.at, w.ws, 'POST',
    CASE WHEN d.m % 5 = 0 THEN '/v1/responses' WHEN d.m % 7 = 0 THEN '/v1/messages' ELSE '/v1/chat/completions' END,
    ${MODEL}, 'node-' || (d.k % 4), CASE WHEN w.session THEN 'session' ELSE 'api_key' END, ${KEY},
    CASE WHEN w.session THEN w.ws || '-plan-' || d.plan END, CASE WHEN w.session THEN 'user-' || d.subj END, NULL,
    CASE WHEN w.coded IS NULL THEN 200 ELSE split_part(w.coded, ':', 2)::int END, split_part(w.coded, ':', 1),
    50 + d.big % 3000, CASE WHEN w.coded IS NULL THEN 40 + d.big % 2900 END, CASE WHEN w.coded IS NULL THEN 20 + d.big % 400 END,
    CASE WHEN w.coded IS NULL THEN 20 + d.big % 4000 ELSE 0 END, CASE WHEN w.coded IS NULL THEN d.big % 800 ELSE 0 END,
    CASE WHEN w.coded IS NULL THEN (d.big % 5000) / 1000000.0 END, false,
    CASE WHEN w.coded IS NULL AND d.k % 10 = 0 THEN 'hit' WHEN w.coded IS NULL THEN 'miss' END, w.tags,
    '10.0.' || (d.k % 256) || '.' || (d.big % 256), 'bench-client/1.0'
  ${DRAWS(from, to)}`;

const USAGE_INSERT = (from: number, to: number) => `
  INSERT INTO "UsageEvent" ("id", "workspaceId", "apiKeyId", "modelId", "nodeId", "endpoint", "inputTokens", "outputTokens", "cost",
    "latencyMs", "planId", "subject", "tags", "createdAt")
  SELECT 'ue_' || lpad(d.n::text, 8, '0'), w.ws, ${KEY}, ${MODEL}, 'node-' || (d.k % 4), 'chat.completions',
    20 + d.big % 4000, d.big % 800, (d.big % 5000) / 1000000.0, 40 + d.big % 2900,
    CASE WHEN w.session THEN w.ws || '-plan-' || d.plan END, CASE WHEN w.session THEN 'user-' || d.subj END, w.tags, w.at
  ${DRAWS(from, to)}`;

async function fill(client: pg.Client): Promise<void> {
  const now = Date.now();
  // maintainPartitions makes yesterday's to a week ahead of its `now`: walked back over the range.
  for (let d = DAYS; d >= 0; d--) await maintainPartitions(now - d * DAY_MS, DAYS * 2);
  await client.query(`INSERT INTO "Workspace" ("id", "name", "updatedAt")
    SELECT 'ws-' || lpad(i::text, 2, '0'), 'Workspace ' || i, now() FROM generate_series(0, 49) AS i`);
  await client.query("SET synchronous_commit = off");
  for (const [table, insert] of [["RequestLog", LOG_INSERT], ["UsageEvent", USAGE_INSERT]] as const) {
    const t0 = Date.now();
    for (let from = 1; from <= ROWS; from += CHUNK) {
      await client.query(insert(from, Math.min(ROWS, from + CHUNK - 1)));
      log(`${table}: ${Math.min(ROWS, from + CHUNK - 1)} rows (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    }
  }
  // The events were loaded in bulk, past the ledger's statement that keeps the daily rollups: built once here.
  const r0 = Date.now();
  for (const statement of ROLLUP_REBUILD) await client.query(statement);
  log(`rollups: ${((Date.now() - r0) / 1000).toFixed(1)} s`);
  const t0 = Date.now();
  await client.query(`ANALYZE "RequestLog"`);
  await client.query(`ANALYZE "UsageEvent"`);
  await client.query(`ANALYZE "UsageDaily"`);
  await client.query(`ANALYZE "UsageDailyTag"`);
  await client.query(`ANALYZE "Workspace"`);
  log(`ANALYZE: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

// ---------------------------------------------------------------------------------------------
// What keeping the rollups costs the ledger: batches of BATCH usage movements (the usage writer's
// largest) through applyMovements, alternately with the rollups' CTEs and without them.

const BATCH = 500;
const BATCH_RUNS = 20;

async function rollupCost(): Promise<{ withMs: number; withoutMs: number }> {
  const without = { $queryRawUnsafe: <T>(sql: string, ...params: unknown[]) => db.$queryRawUnsafe<T>(sql.replace(`${ROLLUP_CTES}, `, ""), ...params) };
  let n = 0;
  const batch = () =>
    Array.from({ length: BATCH }, (_, i) =>
      usageMovement({ workspaceId: `ws-${String(i % 50).padStart(2, "0")}`, apiKeyId: null }, "0.000123", {
        eventId: `cost-${n++}`, modelId: `model-${String(i % 20).padStart(2, "0")}`, nodeId: null, endpoint: "chat.completions",
        inputTokens: 100, outputTokens: 20, tags: i % 2 ? { team: `team-${i % 10}`, feature: `feature-${i % 20}` } : null,
      }),
    );
  const times = { with: [] as number[], without: [] as number[] };
  for (let run = 0; run < BATCH_RUNS + 2; run++) {
    for (const variant of ["with", "without"] as const) {
      const movements = batch();
      const t0 = process.hrtime.bigint();
      await applyMovements(variant === "with" ? db : without, movements);
      if (run >= 2) times[variant].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { withMs: median(times.with), withoutMs: median(times.without) };
}

// ---------------------------------------------------------------------------------------------
// The measured calls.

type Case = { name: string; call: () => Promise<unknown> };
type Result = { name: string; runs: number; rows: string; p50: number; p95: number; p99: number; max: number; others: number; sent: Sent[] };

/** Nearest-rank percentile of an ascending array. */
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

function rowsOf(out: unknown): string {
  const o = out as { logs?: unknown[]; events?: unknown[]; days?: unknown[]; models?: unknown[]; tagGroups?: unknown[] };
  if (o.logs) return String(o.logs.length);
  if (o.events) return String(o.events.length);
  if (o.days) return `${o.days.length} days, ${o.models?.length ?? 0} models${o.tagGroups ? `, ${o.tagGroups.length} tag values` : ""}`;
  return "?";
}

async function measure(c: Case, benchPids: () => number[]): Promise<Result> {
  for (let i = 0; i < WARMUP - 1; i++) await c.call();
  capture = [];
  const out = await c.call(); // the last warm-up call: its statements are kept for EXPLAIN
  const sent = capture;
  capture = null;
  const samples: number[] = [];
  const m0 = machineCpu();
  const b0 = cpuSnapshot(benchPids());
  const deadline = Date.now() + QUERY_BUDGET_S * 1000;
  for (let i = 0; i < RUNS && Date.now() < deadline; i++) {
    const t0 = process.hrtime.bigint();
    await c.call();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const m1 = machineCpu();
  const span = m1.totalMs - m0.totalMs;
  const others = span > 0 ? Math.max(0, m1.busyMs - m0.busyMs - cpuSince(b0, benchPids())) / span : 0;
  samples.sort((a, b) => a - b);
  const r = { name: c.name, runs: samples.length, rows: rowsOf(out), p50: pct(samples, 50), p95: pct(samples, 95), p99: pct(samples, 99), max: samples.at(-1)!, others, sent };
  log(`${c.name}: p50 ${r.p50.toFixed(1)} p95 ${r.p95.toFixed(1)} p99 ${r.p99.toFixed(1)} ms over ${r.runs} runs (${r.rows}; others ${Math.round(others * 100)}%)`);
  return r;
}

/** EXPLAIN (ANALYZE, BUFFERS) of a statement Prisma sent, with its parameters. */
async function explain(client: pg.Client, s: Sent): Promise<string> {
  const params = JSON.parse(s.params) as unknown[];
  const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${s.query}`, params.map((p) => (p !== null && typeof p === "object" ? JSON.stringify(p) : p)));
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}

// ---------------------------------------------------------------------------------------------

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-logs-"));
chmodSync(scratch, 0o755);
let database: EmbeddedDatabase | undefined;
let admin: pg.Client | undefined;
let failed = false;
try {
  log(`starting PostgreSQL in ${scratch}`);
  database = await startEmbeddedDatabase(path.join(scratch, "data"));
  await applyMigrations(database.url);
  useCapturingClient(database.url);
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const fillStart = Date.now();
  await fill(admin);
  const fillSeconds = (Date.now() - fillStart) / 1000;
  const { rows: counts } = await admin.query<{ logs: string; big: string; usage: string; size: string; usize: string }>(`SELECT
    (SELECT count(*) FROM "RequestLog") AS logs, (SELECT count(*) FROM "RequestLog" WHERE "workspaceId" = '${BIG}') AS big,
    (SELECT count(*) FROM "UsageEvent") AS usage,
    pg_size_pretty((SELECT sum(pg_total_relation_size(c.oid)) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'RequestLog')::bigint) AS size,
    pg_size_pretty(pg_total_relation_size('"UsageEvent"')) AS usize`);
  const c = counts[0]!;
  log(`filled in ${fillSeconds.toFixed(0)} s: ${c.logs} log rows (${c.big} in ${BIG}; ${c.size} with indexes), ${c.usage} usage events (${c.usize})`);

  // A cursor 20 pages in, and one from the middle of the range (the newest row 15 days back).
  let cursor: string | null = null;
  for (let i = 0; i < 20; i++) cursor = (await listLogs(BIG, { limit: 50, ...(cursor ? { cursor } : {}) })).next_cursor;
  const mid = new Date(Date.now() - 15 * DAY_MS);
  const midCursor = (await listLogs(BIG, { to: mid, limit: 1 })).next_cursor;
  const hourFrom = new Date(Date.now() - 10 * DAY_MS);
  const hourTo = new Date(hourFrom.getTime() + 3_600_000);
  const key = `${BIG}-key-7`;
  const summary = usageSummary as (w: string, f: UsageFilter, groupByTag?: string) => Promise<unknown>;
  const logs = (f: LogFilter) => () => listLogs(BIG, { limit: 50, ...f });
  const cases: Case[] = [
    { name: "logs: first page (no filter)", call: logs({}) },
    { name: "logs: page 21 by cursor", call: logs({ cursor: cursor! }) },
    { name: "logs: page from 15 days back by cursor", call: logs({ cursor: midCursor! }) },
    { name: "logs: status 4xx", call: logs({ status: "4xx" }) },
    { name: "logs: status 5xx", call: logs({ status: "5xx" }) },
    { name: "logs: code rate_limit_exceeded", call: logs({ code: "rate_limit_exceeded" }) },
    { name: "logs: model model-07", call: logs({ model: "model-07" }) },
    { name: "logs: key", call: logs({ keyId: key }) },
    { name: "logs: plan", call: logs({ planId: `${BIG}-plan-3` }) },
    { name: "logs: subject user-17", call: logs({ subject: "user-17" }) },
    { name: "logs: tag team=team-3", call: logs({ tag: "team=team-3" }) },
    { name: "logs: 1-hour range", call: logs({ from: hourFrom, to: hourTo }) },
    { name: "logs: key + 4xx", call: logs({ keyId: key, status: "4xx" }) },
    { name: "usage: summary, 30 days", call: () => summary(BIG, {}) },
    { name: "usage: summary, 30 days, by tag team", call: () => summary(BIG, {}, "team") },
    { name: "usage: summary, 30 days, one key", call: () => summary(BIG, { apiKeyId: key }) },
    { name: "usage: summary, 30 days, tag team=team-3", call: () => summary(BIG, { tag: "team=team-3" }) },
    { name: "usage: recent requests (first page)", call: () => usageEvents(BIG, { limit: 50 }) },
  ];
  // The postmaster may not be this process's child (as root it runs as another user): counted by its pid file.
  const postmaster = Number(readFileSync(path.join(database.dir, "postmaster.pid"), "utf8").split("\n")[0]);
  const pgPids = () => processTree([process.pid, ...(postmaster ? [postmaster] : [])]);
  const results: Result[] = [];
  for (const cs of cases) results.push(await measure(cs, pgPids));
  const cost = await rollupCost();
  log(`rollup cost: a batch of ${BATCH} usage movements ${cost.withMs.toFixed(1)} ms with the rollups, ${cost.withoutMs.toFixed(1)} ms without`);

  const slow = results.filter((r) => r.p95 >= LIMIT_MS);
  failed = slow.length > 0;
  const f = (v: number) => v.toFixed(1);
  process.stdout.write(
    [
      `Request log bench, ${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version};`,
      `embedded PostgreSQL (default settings) on the same cores; ${c.logs} RequestLog rows (${c.big} in the big workspace; ${c.size} with indexes) and ${c.usage} UsageEvent rows (${c.usize}) over ${DAYS} days, 50 workspaces, filled in ${fillSeconds.toFixed(0)} s;`,
      `each call timed in the bench process (the server function: Prisma, the query, the mapping), ${RUNS} runs after ${WARMUP} warm-up calls (at most ${QUERY_BUDGET_S} s each); ms.`,
      "",
      "| call (big workspace) | rows | runs | p50 | p95 | p99 | max | other load | p95 < " + LIMIT_MS + " ms |",
      "|---|---|---|---|---|---|---|---|---|",
      ...results.map((r) => `| ${r.name} | ${r.rows} | ${r.runs} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.p99)} | ${f(r.max)} | ${Math.round(r.others * 100)}% | ${r.p95 < LIMIT_MS ? "yes" : "**no**"} |`),
      "",
      "\"other load\": share of the machine's CPU used by processes outside the bench (and its PostgreSQL) while the row was measured.",
      "",
      `Keeping the daily rollups in the ledger's statement: a batch of ${BATCH} usage movements (50 workspaces, 20 models, half tagged) takes ${f(cost.withMs)} ms with them and ${f(cost.withoutMs)} ms without (medians of ${BATCH_RUNS} alternating runs, on the filled tables).`,
      "",
    ].join("\n"),
  );
  for (const r of slow) {
    process.stdout.write(`\n### EXPLAIN (ANALYZE, BUFFERS): ${r.name}\n`);
    for (const s of r.sent.slice(0, 4)) {
      process.stdout.write(`\n${s.query.trim()}\n-- params ${s.params}\n\n${await explain(admin, s).catch((err: Error) => `EXPLAIN failed: ${err.message}`)}\n`);
    }
  }
} catch (err) {
  failed = true;
  log(`failed: ${(err as Error).stack ?? String(err)}`);
} finally {
  await admin?.end().catch(() => undefined);
  await disconnectDb().catch(() => undefined);
  await database?.stop().catch((err: Error) => log(`stopping PostgreSQL: ${err.message}`));
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
