// Benchmark: video jobs. Boots its own stack (temp data dir, embedded PostgreSQL, the built-in
// node, the gateway with NO inline workers) and then runs `npm run worker` processes beside it:
//   pickup latency  queued -> in_progress (the job row's createdAt -> startedAt, both database
//                   clock), for jobs created one at a time into idle workers;
//   throughput      jobs completed per minute for a burst of jobs, with 1 and with 2 workers.
//
//   npm run bench:videos
//   BENCH_PICKUPS=200 BENCH_BURST=60 BENCH_WORKER_SLOTS=2 npm run bench:videos
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { db } from "../server/infra/db/client";
import { freePort } from "../server/infra/net/free-port";
import { projectRoot } from "../server/infra/paths";
import { createWorkspace } from "../server/onboarding/create-workspace";
import { startStack } from "../scripts/lib/stack";

const PICKUPS = Number(process.env.BENCH_PICKUPS ?? 100);
const BURST = Number(process.env.BENCH_BURST ?? 100);
const SLOTS = Number(process.env.BENCH_WORKER_SLOTS ?? 2);
const JOB = { model: "local-video", prompt: "bench", seconds: 1, size: "320x180" };

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const scratch = mkdtempSync(path.join(tmpdir(), "video-bench-"));
chmodSync(scratch, 0o755);
const dataDir = path.join(scratch, "data");
process.env.VIDEO_WORKERS = "0"; // the gateway only enqueues; the workers below render
process.env.VIDEO_POLL_INTERVAL_MS = process.env.VIDEO_POLL_INTERVAL_MS ?? "100";
process.env.LOCAL_NODE_VIDEO_CONCURRENCY = process.env.LOCAL_NODE_VIDEO_CONCURRENCY ?? "8";
const stack = await startStack({
  dataDir, port: await freePort(), host: "127.0.0.1", distDir: ".next-test", role: "bench", stdio: "ignore",
  log: (l) => process.stderr.write(`[bench] ${l}\n`),
});

const workers: ChildProcess[] = [];
async function startWorker(): Promise<void> {
  const proc = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: stack.databaseUrl, DATA_DIR: dataDir, GATEWAY_SECRET: stack.secret, VIDEO_WORKERS: String(SLOTS), VIDEO_POLL_INTERVAL_MS: process.env.VIDEO_POLL_INTERVAL_MS },
    stdio: ["ignore", "pipe", "inherit"],
  });
  workers.push(proc);
  await new Promise<void>((resolve) => proc.stdout!.on("data", (c: Buffer) => c.toString().includes("ready") && resolve()));
}
async function stopWorkers(): Promise<void> {
  await Promise.all(workers.splice(0).map((p) => new Promise((r) => (p.once("exit", r), p.kill("SIGTERM")))));
}

let key = "";
async function create(): Promise<string> {
  const res = await fetch(`${stack.baseUrl}/v1/videos`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(JOB),
  });
  if (res.status !== 200) throw new Error(`create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}
async function waitFor(ids: string[], done: (s: string) => boolean): Promise<void> {
  for (;;) {
    const rows = await db.videoJob.findMany({ where: { id: { in: ids } }, select: { status: true } });
    if (rows.every((r) => done(r.status))) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const lines: string[] = [];
try {
  const { apiKey } = await createWorkspace({ name: "bench", credits: "1000000", withKey: true });
  key = apiKey!.secret;
  for (const count of [1, 2]) {
    while (workers.length < count) await startWorker();
    await new Promise((r) => setTimeout(r, 1000));
    // One job first, so the timed ones find warm connections and code.
    const warm = await create();
    await waitFor([warm], (s) => s === "completed" || s === "failed");
    // Pickup latency: one job at a time into idle workers.
    const ids: string[] = [];
    for (let i = 0; i < PICKUPS; i++) {
      const id = await create();
      ids.push(id);
      await waitFor([id], (s) => s === "completed" || s === "failed");
    }
    const rows = await db.videoJob.findMany({ where: { id: { in: ids } }, select: { createdAt: true, startedAt: true, status: true } });
    const pickup = rows.map((r) => r.startedAt!.getTime() - r.createdAt.getTime()).sort((a, b) => a - b);
    // Throughput: a burst of jobs, from the first create to the last completion.
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: BURST }, () => create()));
    await waitFor(burst, (s) => s === "completed" || s === "failed");
    const seconds = (Date.now() - started) / 1000;
    const failed = await db.videoJob.count({ where: { id: { in: [...ids, ...burst] }, status: "failed" } });
    lines.push(
      `| ${count} | ${SLOTS} | ${PICKUPS} | ${pct(pickup, 50)} ms | ${pct(pickup, 99)} ms | ${pickup.at(-1)} ms | ${BURST} | ${seconds.toFixed(1)} s | ${((BURST / seconds) * 60).toFixed(0)} | ${failed} |`,
    );
  }
} finally {
  await stopWorkers();
  await stack.stop();
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`Video jobs: ${JOB.seconds} s ${JOB.size} renders on the built-in node (LOCAL_NODE_VIDEO_CONCURRENCY=${process.env.LOCAL_NODE_VIDEO_CONCURRENCY})`);
console.log("| worker processes | slots each | jobs timed | pickup p50 | pickup p99 | pickup max | burst jobs | burst time | jobs/min | failed |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const l of lines) console.log(l);
