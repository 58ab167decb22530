// `npm run soak`: many instances on one PostgreSQL under steady mixed traffic. Four gateway
// instances (one process each, started as `npm start` starts its server) and two `npm run worker`
// processes (video renders, batches) share the embedded PostgreSQL; for SOAK_MINUTES (10) an open
// loop sends SOAK_RATE (100) calls a second over the instances in turn: chat, streams,
// embeddings (the built-in node), response-cache hits and misses, a key held to SOAK_RPM (300)
// requests a minute, refusals (a wrong key, a malformed body); beside it a batch of SOAK_BATCH_LINES
// (100) lines every minute and a one-second video every 30 s. The first SOAK_WARMUP_SECONDS (30)
// are checked like the rest but reported apart. Then it checks that no request-log
// row was lost, every answered call was billed once and no refusal was, money is exact in every
// workspace, the limit held across the instances, all batches and videos ended complete, and
// that the plain chat p99 and the processes' RSS were flat from the first minute to the last.
// Exits 1 naming each check that failed.
//
//   npm run soak
//   SOAK_MINUTES=2 SOAK_RATE=50 npm run soak
//   SOAK_ANSWERS=/tmp/answers.json npm run soak      (every call's kind, instance, status, time)
//   SOAK_HEAP=1 npm run soak      (+ what grew in the second instance's V8 heap from the first minute's end to the last's;
//                                  writing a snapshot leaves that instance's RSS ~150 MB higher, so the RSS check fails)
import "./lib/bench-env"; // first: sets the env
import "./lib/with-local-node";
import "./lib/soak-env";
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startOurs, waitUntilRoutable } from "./lib/ours";
import { startMock } from "./lib/servers";
import { processTree, pssMb, rssByMapping, rssMb } from "./lib/proc";
import { startTraffic } from "./lib/soak-traffic";
import { billedOnce, flat, limitHeld, logRows, minutes, moneyExact, noneUnexpected, settle, type Check, type MemorySample } from "./lib/soak-checks";
import { startJobs } from "./lib/soak-jobs";
import { spawnGateway, stopChild, waitForHttp, type Child } from "../scripts/lib/processes";
import { freePort } from "../server/infra/net/free-port";
import { projectRoot } from "../server/infra/paths";
import { createWorkspace } from "../server/onboarding/create-workspace";
import { setCacheSettings } from "../server/response-cache/settings";
import { setWorkspaceLimits } from "../server/identity/plans/manage-plans";
import { MOCK_MODEL } from "./mock-upstream";
import { snapshotArgs, takeSnapshots } from "./lib/mix-heap";
import { growthMarkdown, heapGrowth } from "./lib/heap-growth";
import pg from "pg";

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
/** Traffic before the measured minutes (the instances' first calls, compiling and filling their caches): checked, reported apart. */
const WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? 30);
const RATE = Number(process.env.SOAK_RATE ?? 100);
const RPM = Number(process.env.SOAK_RPM ?? 300);
const INSTANCES = Number(process.env.SOAK_INSTANCES ?? 4);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 2);
const HEAP = process.env.SOAK_HEAP === "1";
const log = (line: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-soak-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const dataDir = path.join(scratch, "data");
const snapshots = HEAP ? mkdtempSync(path.join(tmpdir(), "gateway-heap-")) : "";
if (HEAP) process.env.GATEWAY_NODE_ARGS = `${process.env.GATEWAY_NODE_ARGS ?? ""} ${snapshotArgs(snapshots)}`.trim();
const mock = await startMock();
const ours = await startOurs({ dataDir, mockV1: `${mock.baseUrl}/v1`, log });
const shared = { DATABASE_URL: ours.stack.databaseUrl, DATA_DIR: dataDir, GATEWAY_SECRET: ours.stack.secret };
const others: Child[] = [];
const workers: Child[] = [];
const checks: Check[] = [];

function startWorker(i: number): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
    cwd: projectRoot,
    stdio: ["ignore", "ignore", process.env.BENCH_GATEWAY_LOGS === "1" ? "inherit" : "ignore"],
    env: { ...process.env, ...shared, VIDEO_WORKERS: "1", BATCH_WORKERS: "1", NODE_ENV: "production" },
  });
  return { name: `worker ${i}`, proc, exited: new Promise((resolve) => proc.once("exit", (code) => resolve(code))) };
}

try {
  const urls = [ours.stack.baseUrl];
  for (let i = 1; i < INSTANCES; i++) {
    const port = await freePort();
    const child = spawnGateway({ port, host: "127.0.0.1", distDir: ".next-bench", env: shared }, process.env.BENCH_GATEWAY_LOGS === "1" ? "inherit" : "ignore");
    others.push(child);
    await waitForHttp(`http://127.0.0.1:${port}/health`, child);
    urls.push(`http://127.0.0.1:${port}`);
  }
  for (let i = 0; i < WORKERS; i++) workers.push(startWorker(i + 1));
  log(`${urls.length} instances (${urls.join(", ")}), ${workers.length} workers`);

  const cache = await createWorkspace({ name: "soak-cache", credits: "1000000", withKey: true });
  await setCacheSettings(cache.workspace.id, { default_on: true, ttl_seconds: 3600 });
  const limited = await createWorkspace({ name: "soak-limited", credits: "1000000", withKey: true });
  await setWorkspaceLimits(limited.workspace.id, { rpm: RPM });
  const jobsWs = await createWorkspace({ name: "soak-jobs", credits: "1000000", withKey: true });
  const keys = { live: ours.apiKey, cache: cache.apiKey!.secret, limited: limited.apiKey!.secret };
  const chatBody = JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "user", content: "warm up" }], max_tokens: 4 });
  for (const url of urls) for (const key of Object.values(keys)) await waitUntilRoutable(`${url}/v1/chat/completions`, { authorization: `Bearer ${key}`, "content-type": "application/json" }, chatBody);

  const instancePids = () => [...ours.gatewayPids(), ...processTree(others.map((c) => c.proc.pid!))];
  const workerPids = () => processTree(workers.map((c) => c.proc.pid!));
  const memory: MemorySample[] = [];
  const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const db = new pg.Client({ connectionString: ours.stack.databaseUrl });
  await db.connect();
  const connections = async () => Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE backend_type = 'client backend'")).rows[0]!.n);
  // RSS for the gateway's processes; PSS for PostgreSQL, whose backends share its buffers (RSS counts them once per backend).
  const sample = async (at: number): Promise<MemorySample> => ({
    at,
    gateway: total(rssMb(instancePids())),
    workers: total(rssMb(workerPids())),
    postgres: total(pssMb(ours.postgresPids())),
    connections: await connections(),
  });
  // The second instance, watched: its RSS by mapping each minute and at the end of the first
  // measured minute and of the last; with SOAK_HEAP=1, a heap snapshot at those two ends too.
  const watched = others[0]?.proc.pid;
  const heapAt: string[] = [];
  const mapped: { at: string; parts: ReturnType<typeof rssByMapping> }[] = [];
  const recordWatched = async (at: string) => {
    if (watched === undefined) return;
    mapped.push({ at, parts: rssByMapping(watched) });
    if (!HEAP) return;
    const file = (await takeSnapshots(snapshots, [watched])).get(watched);
    if (file) heapAt.push(file);
    log(`heap snapshot of instance 2 (pid ${watched}): ${file ?? "none"}`);
  };

  log(`traffic: ${RATE} calls/s for ${WARMUP_SECONDS} s of warm-up and ${MINUTES} min, a batch a minute and a video every 30 s`);
  const startedEpoch = Date.now();
  const traffic = startTraffic(urls, keys, MOCK_MODEL, RATE);
  const jobs = startJobs(urls, jobsWs.apiKey!.secret, Number(process.env.SOAK_BATCH_LINES ?? 100), log);
  const sampler = setInterval(() => {
    void sample(performance.now() - traffic.started).then((m) => {
      memory.push(m);
      if (memory.length % 6 === 0 && watched !== undefined) mapped.push({ at: `minute ${(m.at / 60_000).toFixed(1)} of the traffic`, parts: rssByMapping(watched) });
      if (memory.length % 6 === 0) log(`minute ${(m.at / 60_000).toFixed(1)}: ${traffic.answers.length} answers, RSS of the instances ${m.gateway.toFixed(0)} MB, workers ${m.workers.toFixed(0)} MB, PostgreSQL PSS ${m.postgres.toFixed(0)} MB, ${m.connections} connections`);
    });
  }, 10_000);
  const endOfFirstMinute = WARMUP_SECONDS * 1000 + 60_000;
  await new Promise((r) => setTimeout(r, endOfFirstMinute));
  await recordWatched("end of minute 1");
  await new Promise((r) => setTimeout(r, Math.max(0, WARMUP_SECONDS * 1000 + MINUTES * 60_000 - (performance.now() - traffic.started))));
  clearInterval(sampler);
  memory.push(await sample(performance.now() - traffic.started));
  await recordWatched(`end of minute ${MINUTES}`);
  await db.end();
  await traffic.stop();
  log(`traffic stopped: ${traffic.answers.length} calls; waiting for the batches and videos`);
  checks.push(...(await jobs.finish()));
  await settle();

  const answers = traffic.answers;
  checks.push(noneUnexpected(answers));
  checks.push(await logRows(answers));
  checks.push(await billedOnce(answers));
  checks.push(
    await moneyExact([
      { name: "live", id: ours.workspaceId },
      { name: "cache", id: cache.workspace.id },
      { name: "limited", id: limited.workspace.id },
      { name: "jobs", id: jobsWs.workspace.id },
    ]),
  );
  checks.push(limitHeld(answers, startedEpoch, RPM));
  const { warmup, rows } = minutes(answers, memory, WARMUP_SECONDS * 1000, MINUTES);
  if (process.env.SOAK_ANSWERS) writeFileSync(process.env.SOAK_ANSWERS, JSON.stringify(answers));
  checks.push(...flat(rows, 1.5, 1.1));

  const kinds = new Map<string, number>();
  for (const a of answers) kinds.set(`${a.kind} ${a.status}${a.cache ? ` (cache ${a.cache})` : ""}`, (kinds.get(`${a.kind} ${a.status}${a.cache ? ` (cache ${a.cache})` : ""}`) ?? 0) + 1);
  process.stdout.write(
    [
      `Soak, ${new Date(startedEpoch).toISOString()}: ${urls.length} gateway instances (1 process each) and ${workers.length} workers on one embedded PostgreSQL, ${WARMUP_SECONDS} s of warm-up and ${MINUTES} min at ${RATE} calls/s (${answers.length} calls).`,
      "",
      `Calls by kind and status: ${[...kinds].sort().map(([k, n]) => `${k} ${n}`).join(", ")}.`,
      "",
      "| minute | calls | plain chat p50 ms | p99 ms | unexpected answers | RSS of the instances MB | of the workers MB | PostgreSQL PSS MB | PostgreSQL connections |",
      "|---|---|---|---|---|---|---|---|---|",
      ...[warmup, ...rows].map((r) => `| ${r.label} | ${r.calls} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.failed} | ${r.memory?.gateway.toFixed(0)} | ${r.memory?.workers.toFixed(0)} | ${r.memory?.postgres.toFixed(0)} | ${r.memory?.connections} |`),
      "",
      "| check | | |",
      "|---|---|---|",
      ...checks.map((c) => `| ${c.name} | ${c.ok ? "ok" : "**FAILED**"} | ${c.detail} |`),
      "",
      "Instance 2's resident memory by mapping (MB; malloc's heap, anonymous mappings: V8's heap and code, WebAssembly memories, malloc's large blocks; mapped files):",
      "",
      "| when | malloc heap | anonymous | files |",
      "|---|---|---|---|",
      ...mapped.map(({ at, parts: m }) => `| ${at} | ${m.heap.toFixed(1)} | ${m.anon.toFixed(1)} | ${m.file.toFixed(1)} |`),
      "",
      ...(heapAt.length === 2 ? [growthMarkdown("What grew in instance 2's heap from the end of minute 1 to the end", heapGrowth(heapAt[0]!, heapAt[1]!)), `snapshots: ${heapAt.join(", ")}`, ""] : []),
    ].join("\n"),
  );
} finally {
  for (const w of workers) await stopChild(w);
  for (const c of others) await stopChild(c);
  await ours.stack.stop();
  await stopChild(mock.child);
  rmSync(scratch, { recursive: true, force: true });
}
const failed = checks.filter((c) => !c.ok);
if (failed.length) {
  process.stderr.write(`soak: ${failed.length} check(s) failed: ${failed.map((c) => c.name).join("; ")}\n`);
  process.exit(1);
}
process.exit(0);
