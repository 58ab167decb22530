// Fine-tuning on the built-in node survives SIGKILL. A gateway (`npm start`, on a database of its
// own, without inline fine-tuning workers) trains through separate `npm run worker` processes:
// the worker driving a job is killed with -9 mid-training, and another worker takes the job once
// its heartbeat lapses and follows the SAME node job to its end: one node job, one usage event,
// the charge exact, the tuned model answering a training prompt with its completion. Then the
// built-in node itself is killed mid-training: the gateway starts it again, the node resumes the
// job from its last checkpoint, and the worker (waiting out the restart) finishes it, billed once.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI, { toFile } from "openai";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { readTrainingFile } from "../../server/fine-tuning/file-rules";
import { createDb } from "../../server/infra/db/client";
import { pidExists as alive } from "../../server/infra/db/process-identity";
import { freePort } from "../../server/infra/net/free-port";
import { projectRoot } from "../../server/infra/paths";
import { formatMoney, money } from "../../server/kernel/money";
import { colourExample, colourFile } from "../fine-tune-examples";
import { until } from "../helpers";

const LOCAL = "local-chat-sim";
const TRAINING_PRICE = "2.5";
/** 12 examples: 10 epochs of 12 steps (batch 1), each step held this long by the node. */
const STEP_DELAY_MS = "150";
const TRAINING = colourFile(12);

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-ft-sigkill-"));
chmodSync(scratch, 0o755);
const dataDir = path.join(scratch, "data");
const databaseName = `gateway_ft_sigkill_${Math.random().toString(36).slice(2, 10)}`;
let databaseUrl: string;
let start: ChildProcess | undefined;
let output = "";
let scratchDb: ReturnType<typeof createDb>;

type Worker = { proc: ChildProcess; id: string; output: string[] };
const workers: Worker[] = [];

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(inject("databaseUrl"));
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** What both the gateway and its workers run with: this test's database and data dir, jobs looked after every second. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    JOB_MONITOR_INTERVAL_SECONDS: "1",
    JOB_POLL_INTERVAL_SECONDS: "1",
    HEALTH_CHECK_INTERVAL_MS: "500",
    FINE_TUNE_POLL_INTERVAL_MS: "200",
    USAGE_SPOOL_DIR: "off",
  };
  delete env.GATEWAY_SECRET; // the gateway's own, generated into the data dir the workers share
  return env;
}

/** Starts `npm run worker` with one fine-tuning worker and waits for its ready line, which names its id. */
async function startWorker(): Promise<Worker> {
  const proc = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
    cwd: projectRoot,
    env: { ...baseEnv(), FINE_TUNE_WORKERS: "1", VIDEO_WORKERS: "1", BATCH_WORKERS: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: string[] = [];
  const id = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${out.join("")}`)), 60_000);
    const read = (chunk: Buffer) => {
      out.push(chunk.toString());
      const m = out.join("").match(/worker (\S+) ready/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout!.on("data", read);
    proc.stderr!.on("data", (c: Buffer) => out.push(c.toString()));
    proc.once("exit", (code) => reject(new Error(`worker exited (${code}): ${out.join("")}`)));
  });
  const worker = { proc, id, output: out };
  workers.push(worker);
  return worker;
}

const exited = (p: ChildProcess) => new Promise<void>((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once("exit", () => r())));

const localNodePid = () => (JSON.parse(readFileSync(path.join(dataDir, "runtime.json"), "utf8")) as { children: { pid: number }[] }).children[0]!.pid;

beforeAll(async () => {
  await admin((c) => c.query(`CREATE DATABASE ${databaseName}`));
  const url = new URL(inject("databaseUrl"));
  url.pathname = `/${databaseName}`;
  databaseUrl = url.toString();
});

afterAll(async () => {
  for (const w of workers) {
    if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill("SIGTERM");
    await Promise.race([exited(w.proc), new Promise((r) => setTimeout(r, 15_000))]);
  }
  if (start && start.exitCode === null && start.signalCode === null) {
    start.kill("SIGTERM");
    await Promise.race([exited(start), new Promise((r) => setTimeout(r, 20_000))]);
    if (start.exitCode === null && start.signalCode === null) start.kill("SIGKILL");
  }
  await scratchDb?.$disconnect();
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`));
  rmSync(scratch, { recursive: true, force: true });
});

type Job = OpenAI.FineTuning.FineTuningJob;

async function waitFor(openai: OpenAI, id: string, done: (job: Job) => boolean, timeoutMs: number): Promise<Job> {
  const { value } = await until(() => openai.fineTuning.jobs.retrieve(id), done, timeoutMs);
  return value;
}

const ended = (j: Job) => ["succeeded", "failed", "cancelled"].includes(j.status);

describe("fine-tuning through SIGKILL", () => {
  let openai: OpenAI;
  let nodeUrl: string;
  let tokensPerEpoch: number;

  beforeAll(async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...baseEnv(),
      PORT: String(port),
      NEXT_DIST_DIR: process.env.TEST_DIST_DIR ?? ".next-test",
      WEB_CONCURRENCY: "1",
      VIDEO_WORKERS: "0",
      BATCH_WORKERS: "0",
      // Only the outside workers drive fine-tuning jobs, so the test knows which one to kill.
      FINE_TUNE_WORKERS: "0",
      LOCAL_NODE_FINE_TUNE_STEP_DELAY_MS: STEP_DELAY_MS,
    };
    start = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], { cwd: projectRoot, env });
    start.stdout!.on("data", (d) => (output += d));
    start.stderr!.on("data", (d) => (output += d));
    await until(async () => output, (o) => (o.includes("Gateway ready") && /sk-gw-[0-9A-Za-z]{40}/.test(o)) || start!.exitCode !== null, 120_000);
    expect(output).toContain("Gateway ready");
    const key = output.match(/sk-gw-[0-9A-Za-z]{40}/)![0];
    openai = new OpenAI({ apiKey: key, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });

    scratchDb = createDb(databaseUrl);
    // The operator prices training on the built-in model.
    await scratchDb.model.update({ where: { id: LOCAL }, data: { priceTrainingPer1m: TRAINING_PRICE } });
    await scratchDb.$executeRaw`SELECT pg_notify('gateway_catalog_changed', '')`;
    const node = await scratchDb.node.findFirstOrThrow({ where: { models: { some: { modelId: LOCAL } } } });
    nodeUrl = node.baseUrl;
    tokensPerEpoch = (await readTrainingFile(TRAINING, 1_000_000)).tokensPerEpoch;
  }, 180_000);

  /** The node's own jobs, as its API lists them. */
  const nodeJobs = async () => ((await (await fetch(`${nodeUrl}/fine_tuning/jobs?limit=100`)).json()) as { data: { id: string; metadata: Record<string, string> | null }[] }).data;

  async function createJob(suffix: string): Promise<Job> {
    const file = await openai.files.create({ file: await toFile(Buffer.from(TRAINING), "colours.jsonl"), purpose: "fine-tune" });
    return openai.fineTuning.jobs.create({ model: LOCAL, training_file: file.id, suffix, seed: 7 });
  }

  async function balance(jobId: string): Promise<string> {
    const row = await scratchDb.fineTuningJob.findUniqueOrThrow({ where: { id: jobId }, select: { workspaceId: true } });
    const ws = await scratchDb.workspace.findUniqueOrThrow({ where: { id: row.workspaceId }, select: { balance: true } });
    return formatMoney(ws.balance.toString());
  }

  /** One node job, one usage event at the exact price, the hold given back, the model answering a training prompt. */
  async function expectExactlyOnce(job: Job, balanceBefore: string): Promise<void> {
    expect(job.status).toBe("succeeded");
    expect(job.trained_tokens).toBe(tokensPerEpoch * Number(job.hyperparameters.n_epochs));
    const onNode = (await nodeJobs()).filter((j) => j.metadata?.gateway_job_id === job.id);
    expect(onNode).toHaveLength(1);
    const row = await scratchDb.fineTuningJob.findUniqueOrThrow({ where: { id: job.id } });
    expect(row.nodeJobId).toBe(onNode[0]!.id);
    const charge = money(TRAINING_PRICE).times(job.trained_tokens!).dividedBy(1_000_000);
    const usage = await scratchDb.usageEvent.findMany({ where: { id: job.id } });
    expect(usage).toHaveLength(1);
    expect(formatMoney(usage[0]!.cost.toString())).toBe(formatMoney(charge));
    expect(await balance(job.id)).toBe(formatMoney(money(balanceBefore).minus(charge)));
    // The hold taken once and given back once.
    const holds = await scratchDb.balanceMovement.findMany({ where: { id: { in: [`ft_reserve:${job.id}`, `ft_release:${job.id}`] } }, orderBy: { id: "asc" } });
    expect(holds.map((m) => [m.kind, formatMoney(m.amount.abs().toString())])).toEqual([
      ["ft_settle", formatMoney(row.reservedAmount.toString())],
      ["ft_reserve", formatMoney(row.reservedAmount.toString())],
    ]);
    const example = colourExample(3);
    const answer = await openai.chat.completions.create({ model: job.fine_tuned_model!, temperature: 0, max_tokens: 20, messages: example.messages.slice(0, 2) as OpenAI.ChatCompletionMessageParam[] });
    expect(answer.choices[0]!.message.content).toBe(example.messages[2]!.content);
  }

  it("a worker killed with -9 mid-training: another worker follows the same node job to its end, billed once", async () => {
    const victim = await startWorker();
    const job = await createJob("kill-worker");
    const heldBalance = await balance(job.id); // the hold taken
    const held = await until(
      () => scratchDb.fineTuningJob.findUniqueOrThrow({ where: { id: job.id } }),
      (r) => r.workerId === victim.id && r.status === "running" && r.nodeJobId !== null && (r.trainedTokens ?? 0) > 0,
      60_000,
    );
    expect(held.value.workerId, victim.output.join("")).toBe(victim.id);
    const nodeJobId = held.value.nodeJobId;
    const reserved = formatMoney(held.value.reservedAmount.toString());
    victim.proc.kill("SIGKILL");
    await exited(victim.proc);
    const rescuer = await startWorker();

    const done = await waitFor(openai, job.id, ended, 120_000);
    const row = await scratchDb.fineTuningJob.findUniqueOrThrow({ where: { id: job.id } });
    expect(row.workerId).toBe(rescuer.id);
    expect(row.attempts).toBe(2);
    expect(row.nodeJobId).toBe(nodeJobId);
    // The events were mirrored once each: no node event twice, the steps in order.
    const events = await scratchDb.fineTuningEvent.findMany({ where: { jobId: job.id }, orderBy: { seq: "asc" } });
    const nodeEventIds = events.flatMap((e) => (e.nodeEventId ? [e.nodeEventId] : []));
    expect(new Set(nodeEventIds).size).toBe(nodeEventIds.length);
    const steps = events.filter((e) => e.type === "metrics").map((e) => (e.data as { step: number }).step);
    expect(steps).toEqual(Array.from({ length: steps.length }, (_, i) => i + 1));
    // The balance before the job: the balance with the hold given back.
    await expectExactlyOnce(done, formatMoney(money(heldBalance).plus(reserved)));
  }, 300_000);

  it("the built-in node killed with -9 mid-training: restarted by the gateway, it resumes from its checkpoint and the job ends once", async () => {
    if (!workers.some((w) => w.proc.exitCode === null && w.proc.signalCode === null)) await startWorker();
    const job = await createJob("kill-node");
    const holdBalance = await balance(job.id);
    const running = await until(
      () => scratchDb.fineTuningJob.findUniqueOrThrow({ where: { id: job.id }, include: { checkpoints: true } }),
      (r) => r.status === "running" && r.checkpoints.length > 0,
      90_000,
    );
    expect(running.value.checkpoints.length).toBeGreaterThan(0);
    const reserved = formatMoney(running.value.reservedAmount.toString());
    const first = localNodePid();
    process.kill(first, "SIGKILL");
    await until(async () => alive(first), (a) => !a, 5000);

    const done = await waitFor(openai, job.id, ended, 180_000);
    expect(done.status, output.slice(-3000)).toBe("succeeded");
    expect(localNodePid()).not.toBe(first);
    expect(output).toMatch(/The built-in node exited \(SIGKILL\)/);
    const checkpoints = await scratchDb.fineTuningCheckpoint.findMany({ where: { jobId: job.id } });
    expect(new Set(checkpoints.map((c) => c.stepNumber)).size).toBe(checkpoints.length);
    await expectExactlyOnce(done, formatMoney(money(holdBalance).plus(reserved)));
  }, 300_000);
});
