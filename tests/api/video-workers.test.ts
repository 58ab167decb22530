// Video workers as separate `npm run worker` processes on the test database, beside the gateway's
// inline workers: 20 jobs are each taken and completed once; a worker killed with -9 mid-render
// leaves its job to be retried, resumed on the node and billed once.
import { spawn, type ChildProcess } from "node:child_process";
import Decimal from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { projectRoot } from "../../server/infra/paths";
import { newWorkspace, until } from "../helpers";
import { balanceOf, createJob, expectedCost, waitForJob } from "../helpers-video";

type Worker = { proc: ChildProcess; id: string; output: string[] };
const workers: Worker[] = [];

/** Starts `npm run worker` (as npm runs it) and waits for its ready line, which names its id. */
async function startWorker(concurrency: number): Promise<Worker> {
  const proc = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
    cwd: projectRoot,
    env: { ...process.env, VIDEO_WORKERS: String(concurrency) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const id = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${output.join("")}`)), 30_000);
    const read = (chunk: Buffer) => {
      output.push(chunk.toString());
      const m = output.join("").match(/worker (\S+) ready/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout!.on("data", read);
    proc.stderr!.on("data", (c: Buffer) => output.push(c.toString()));
    proc.once("exit", (code) => reject(new Error(`worker exited (${code}): ${output.join("")}`)));
  });
  const worker = { proc, id, output };
  workers.push(worker);
  return worker;
}

const exited = (w: Worker) => new Promise<void>((r) => (w.proc.exitCode !== null || w.proc.signalCode !== null ? r() : w.proc.once("exit", () => r())));

afterAll(async () => {
  for (const w of workers) {
    w.proc.kill("SIGTERM");
    await exited(w);
  }
});

describe("workers in separate processes", () => {
  let a: Worker;
  let b: Worker;
  beforeAll(async () => {
    [a, b] = await Promise.all([startWorker(2), startWorker(2)]);
  }, 60_000);

  it("20 jobs across the workers: each taken once, completed once, billed once, exactly", async () => {
    const { workspace, openai } = await newWorkspace("50");
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createJob(openai, { model: "local-video", prompt: `job ${i}`, seconds: 1 + (i % 3), size: "320x180" })),
    );
    const finished = await Promise.all(created.map((c) => waitForJob(openai, c.id, 120_000)));
    for (const { job } of finished) expect(job.status).toBe("completed");

    const rows = await db.videoJob.findMany({ where: { workspaceId: workspace.id } });
    expect(rows).toHaveLength(20);
    for (const row of rows) expect(row.attempts).toBe(1);
    // Both outside workers took part (beside the gateway's inline workers).
    const takers = new Set(rows.map((r) => r.workerId));
    expect(takers).toContain(a.id);
    expect(takers).toContain(b.id);

    // pg-boss: one queue job per video job, completed on its first attempt (pg-boss marks a job
    // completed once its handler returned, a moment after the video job's own row says so).
    const queueJobs = () => db.$queryRaw<{ state: string; retry_count: number }[]>`
      SELECT state::text, retry_count FROM pgboss.job WHERE name = 'video-render' AND data->>'jobId' = ANY(${rows.map((r) => r.id)})`;
    const { value: queue } = await until(queueJobs, (q) => q.length === 20 && q.every((j) => j.state !== "active"), 10_000);
    expect(queue).toHaveLength(20);
    for (const q of queue) expect(q).toEqual({ state: "completed", retry_count: 0 });

    // One usage event per job; the balance fell by exactly their sum.
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events.map((e) => e.id).sort()).toEqual(rows.map((r) => r.id).sort());
    let total = new Decimal(0);
    for (const { job } of finished) {
      const cost = expectedCost(job.billed_seconds!, 24, "0.5");
      expect(job.cost).toBe(cost.toFixed());
      total = total.plus(cost);
    }
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(50).minus(total).toFixed());
    console.log(`20 jobs taken by: ${[...takers].map((t) => `${t} (${rows.filter((r) => r.workerId === t).length})`).join(", ")}`);
  }, 180_000);

  it("a worker killed with -9 mid-render: the job is retried, resumes the node's render, completes once and is billed once", async () => {
    // Only one outside worker from here on, with one slot: the gateway's inline workers (2 slots)
    // get busy with slow jobs, so one of the jobs below must be taken by `victim`.
    b.proc.kill("SIGTERM");
    await exited(b);
    const victim = a;
    const { workspace, openai } = await newWorkspace("10");
    const created = [];
    let held: { id: string; upstreamJobId: string | null; nodeId: string | null } | null = null;
    for (let i = 0; i < 6 && !held; i++) {
      created.push(await createJob(openai, { model: "local-video", prompt: `slow ${i} [sim:slow]`, seconds: 6, size: "320x180" }));
      const deadline = Date.now() + 3000;
      while (!held && Date.now() < deadline) {
        held = await db.videoJob.findFirst({
          where: { workspaceId: workspace.id, workerId: victim.id, status: "in_progress", upstreamJobId: { not: null } },
          select: { id: true, upstreamJobId: true, nodeId: true },
        });
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    expect(held, "a job was taken by the worker to be killed").not.toBeNull();
    victim.proc.kill("SIGKILL");
    await exited(victim);

    const { job } = await waitForJob(openai, held!.id, 90_000);
    expect(job.status).toBe("completed");
    const row = await db.videoJob.findUniqueOrThrow({ where: { id: held!.id } });
    expect(row.attempts).toBe(2);
    expect(row.workerId).not.toBe(victim.id);
    // The retry resumed the render the node already had, rather than starting another.
    expect(row.upstreamJobId).toBe(held!.upstreamJobId);
    expect(row.nodeId).toBe(held!.nodeId);
    // pg-boss marks its job completed once the handler returned, a moment after the row says so.
    const { value: [queued] } = await until(
      () => db.$queryRaw<{ state: string; retry_count: number }[]>`
        SELECT state::text, retry_count FROM pgboss.job WHERE name = 'video-render' AND data->>'jobId' = ${held!.id}`,
      (q) => q.length === 1 && q[0]!.state !== "active",
      10_000,
    );
    expect(queued).toEqual({ state: "completed", retry_count: 1 });

    const all = await Promise.all(created.map((c) => waitForJob(openai, c.id, 90_000)));
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events).toHaveLength(created.length);
    expect(events.filter((e) => e.id === held!.id)).toHaveLength(1);
    let total = new Decimal(0);
    for (const { job: j } of all) total = total.plus(expectedCost(j.billed_seconds!, 24, "0.5"));
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(10).minus(total).toFixed());
  }, 180_000);
});
