// Fine-tuning on a built-in node survives SIGKILL. A built-in node of the test's own (a process,
// training slowly, its jobs kept in a data dir) serves a tunable model no other node serves; jobs
// are driven by `npm run worker` processes beside the test gateway's inline worker. The worker
// driving a job is killed with -9 mid-training: another worker takes the job once its heartbeat
// lapses and follows the SAME node job to its end: one node job, one usage event, the charge
// exact, the tuned model answering a training prompt with its completion. Then the node itself is
// killed with -9 mid-training and started again (as the gateway's supervisor does): it resumes
// the job from its last checkpoint, and the worker, waiting out the restart, ends it once.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrainingFile } from "../../server/fine-tuning/file-rules";
import { db } from "../../server/infra/db/client";
import { freePort } from "../../server/infra/net/free-port";
import { projectRoot } from "../../server/infra/paths";
import { formatMoney, money } from "../../server/kernel/money";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { chatModelCard } from "../fakes/chat-model-card";
import { colourExample, colourFile } from "../fine-tune-examples";
import { newWorkspace, until } from "../helpers";
import { balanceOf } from "../helpers-media";
import { refreshRouting } from "../helpers-nodes";

/** The gateway's name of the node's tunable model (only this test's node serves it). */
const MODEL = "test-ft-sigkill-base";
const TRAINING_PRICE = "2.5";
/** 12 examples: 10 epochs of 12 steps (batch 1), each step held this long by the node. */
const STEP_DELAY_MS = "150";
const TRAINING = colourFile(12);

const nodeDir = mkdtempSync(path.join(tmpdir(), "gateway-ft-sigkill-"));
let nodePort: number;
let nodeProc: ChildProcess | undefined;
let nodeOutput = "";
let nodeId: string;

type Worker = { proc: ChildProcess; id: string; output: string[] };
const workers: Worker[] = [];

const exited = (p: ChildProcess) => new Promise<void>((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once("exit", () => r())));
const running = (p: ChildProcess) => p.exitCode === null && p.signalCode === null;

/** Starts the built-in node as its own process on `nodePort`, keeping its jobs in `nodeDir`. */
async function startNode(): Promise<void> {
  const proc = spawn(process.execPath, ["--import", "tsx", "local-node/main.ts"], {
    cwd: projectRoot,
    env: { ...process.env, LOCAL_NODE_PORT: String(nodePort), LOCAL_NODE_DATA_DIR: nodeDir, LOCAL_NODE_FINE_TUNE_STEP_DELAY_MS: STEP_DELAY_MS },
    stdio: ["ignore", "pipe", "pipe"],
  });
  proc.stdout!.on("data", (d) => (nodeOutput += d));
  proc.stderr!.on("data", (d) => (nodeOutput += d));
  nodeProc = proc;
  const up = await until(
    () => fetch(`http://127.0.0.1:${nodePort}/v1/models`).then((r) => r.status, () => 0),
    (s) => s === 200 || !running(proc),
    60_000,
  );
  if (up.value !== 200) throw new Error(`the node did not start: ${nodeOutput}`);
}

/** Starts `npm run worker` with one fine-tuning worker and waits for its ready line, which names its id. */
async function startWorker(): Promise<Worker> {
  const proc = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
    cwd: projectRoot,
    env: { ...process.env, FINE_TUNE_WORKERS: "1", VIDEO_WORKERS: "1", BATCH_WORKERS: "0", FINE_TUNE_POLL_INTERVAL_MS: "200" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: string[] = [];
  const id = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${out.join("")}`)), 90_000);
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

beforeAll(async () => {
  nodePort = await freePort();
  await startNode();
  await db.model.create({
    data: { ...(cardToRow(chatModelCard(MODEL, { input: "0.3", output: "1.7" })) as object), fineTunable: true, priceTrainingPer1m: TRAINING_PRICE } as never,
  });
  nodeId = (await addNode({ name: "fine-tuning-sigkill-node", url: `http://127.0.0.1:${nodePort}/v1`, city: "Lyon", country: "FR", discover: false, models: { [MODEL]: "local-chat-sim" } })).node.id;
  await refreshRouting();
}, 120_000);

afterAll(async () => {
  for (const w of workers) {
    if (running(w.proc)) w.proc.kill("SIGTERM");
    await Promise.race([exited(w.proc), new Promise((r) => setTimeout(r, 15_000))]);
  }
  if (nodeProc && running(nodeProc)) {
    nodeProc.kill("SIGTERM");
    await Promise.race([exited(nodeProc), new Promise((r) => setTimeout(r, 10_000))]);
  }
  await removeNode(nodeId).catch(() => undefined);
  await db.model.deleteMany({ where: { OR: [{ id: MODEL }, { baseModelId: MODEL }] } });
  rmSync(nodeDir, { recursive: true, force: true });
});

type Job = OpenAI.FineTuning.FineTuningJob;
const ended = (j: Job) => ["succeeded", "failed", "cancelled"].includes(j.status);

/** The node's own jobs, as its API lists them. */
const nodeJobs = async () => ((await (await fetch(`http://127.0.0.1:${nodePort}/v1/fine_tuning/jobs?limit=100`)).json()) as { data: { id: string; metadata: Record<string, string> | null }[] }).data;

async function createJob(openai: OpenAI, suffix: string): Promise<Job> {
  const file = await openai.files.create({ file: await toFile(Buffer.from(TRAINING), "colours.jsonl"), purpose: "fine-tune" });
  return openai.fineTuning.jobs.create({ model: MODEL, training_file: file.id, suffix, seed: 7 });
}

/** One node job, one usage event at the exact price, the hold given back once, the model answering a training prompt. */
async function expectExactlyOnce(openai: OpenAI, job: Job, workspaceId: string, balanceBefore: string): Promise<void> {
  expect(job.status, JSON.stringify(job)).toBe("succeeded");
  const tokensPerEpoch = (await readTrainingFile(TRAINING, 1_000_000)).tokensPerEpoch;
  expect(job.trained_tokens).toBe(tokensPerEpoch * Number(job.hyperparameters.n_epochs));
  const onNode = (await nodeJobs()).filter((j) => j.metadata?.gateway_job_id === job.id);
  expect(onNode).toHaveLength(1);
  const row = await db.fineTuningJob.findUniqueOrThrow({ where: { id: job.id } });
  expect(row.nodeJobId).toBe(onNode[0]!.id);
  const charge = money(TRAINING_PRICE).times(job.trained_tokens!).dividedBy(1_000_000);
  const usage = await db.usageEvent.findMany({ where: { id: job.id } });
  expect(usage).toHaveLength(1);
  expect(formatMoney(usage[0]!.cost.toString())).toBe(formatMoney(charge));
  const holds = await db.balanceMovement.findMany({ where: { id: { in: [`ft_reserve:${job.id}`, `ft_release:${job.id}`] } }, orderBy: { id: "asc" } });
  expect(holds.map((m) => [m.kind, formatMoney(m.amount.abs().toString())])).toEqual([
    ["ft_settle", formatMoney(row.reservedAmount.toString())],
    ["ft_reserve", formatMoney(row.reservedAmount.toString())],
  ]);
  expect(await balanceOf(workspaceId)).toBe(formatMoney(money(balanceBefore).minus(charge)));
  const example = colourExample(3);
  const answer = await openai.chat.completions.create({ model: job.fine_tuned_model!, temperature: 0, max_tokens: 20, messages: example.messages.slice(0, 2) as OpenAI.ChatCompletionMessageParam[] });
  expect(answer.choices[0]!.message.content).toBe(example.messages[2]!.content);
}

describe("fine-tuning through SIGKILL", () => {
  it("a worker killed with -9 mid-training: another worker follows the same node job to its end, billed once", async () => {
    const victim = await startWorker();
    const { workspace, openai } = await newWorkspace("10", "Sigkill Worker");
    // The test gateway's inline workers may take jobs first, and each holds its job while it
    // trains: jobs are created, each waited for until a worker claims it, until the victim holds one.
    const inlineWorkers = Number(process.env.FINE_TUNE_WORKERS ?? 3);
    let claimedByVictim: string | null = null;
    const created: Job[] = [];
    for (let i = 0; i <= inlineWorkers + 1 && !claimedByVictim; i++) {
      const job = await createJob(openai, `kill-worker-${i}`);
      created.push(job);
      const claimed = await until(() => db.fineTuningJob.findUniqueOrThrow({ where: { id: job.id } }), (r) => r.workerId !== null, 60_000);
      if (claimed.value.workerId === victim.id) claimedByVictim = job.id;
    }
    expect(claimedByVictim, victim.output.join("")).not.toBeNull();
    const jobId = claimedByVictim!;
    // Killed mid-training: once the node trains the job and the victim has mirrored some of it.
    const { value: held } = await until(
      () => db.fineTuningJob.findUniqueOrThrow({ where: { id: jobId } }),
      (r) => r.nodeJobId !== null && r.status === "running" && (r.trainedTokens ?? 0) > 0,
      120_000,
    );
    expect(held.workerId).toBe(victim.id);
    victim.proc.kill("SIGKILL");
    await exited(victim.proc);
    const rescuer = await startWorker();

    const { value: done } = await until(() => openai.fineTuning.jobs.retrieve(jobId), ended, 150_000);
    const row = await db.fineTuningJob.findUniqueOrThrow({ where: { id: jobId } });
    expect(row.workerId).not.toBe(victim.id);
    expect([rescuer.id, row.workerId]).toContain(row.workerId);
    expect(row.attempts).toBe(2);
    expect(row.nodeJobId).toBe(held.nodeJobId);
    // pg-boss marks its job completed once the handler has returned, just after the job's own row ended.
    const { value: queued } = await until(
      async () => (await db.$queryRaw<{ state: string; retry_count: number }[]>`
        SELECT state::text, retry_count FROM pgboss.job WHERE name = 'fine-tune' AND data->>'jobId' = ${jobId}`)[0],
      (q) => q?.state !== "active",
      10_000,
    );
    expect(queued).toEqual({ state: "completed", retry_count: 1 });
    // The events were mirrored once each: no node event twice, the steps in order.
    const events = await db.fineTuningEvent.findMany({ where: { jobId }, orderBy: { seq: "asc" } });
    const nodeEventIds = events.flatMap((e) => (e.nodeEventId ? [e.nodeEventId] : []));
    expect(new Set(nodeEventIds).size).toBe(nodeEventIds.length);
    const steps = events.filter((e) => e.type === "metrics").map((e) => (e.data as { step: number }).step);
    expect(steps).toEqual(Array.from({ length: steps.length }, (_, i) => i + 1));

    // Every job ends; the workspace paid the tokens each trained, once.
    const all = [];
    for (const c of created) all.push((await until(() => openai.fineTuning.jobs.retrieve(c.id), ended, 150_000)).value);
    const others = all.filter((j) => j.id !== jobId);
    let othersCharge = money(0);
    for (const j of others) {
      expect(j.status).toBe("succeeded");
      othersCharge = othersCharge.plus(money(TRAINING_PRICE).times(j.trained_tokens!).dividedBy(1_000_000));
    }
    await expectExactlyOnce(openai, done, workspace.id, formatMoney(money("10").minus(othersCharge)));
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id, endpoint: "/v1/fine_tuning/jobs" } })).toBe(created.length);
  }, 400_000);

  it("the node killed with -9 mid-training and started again: it resumes from its checkpoint and the job ends once", async () => {
    const { workspace, openai } = await newWorkspace("10", "Sigkill Node");
    const job = await createJob(openai, "kill-node");
    const atCheckpoint = await until(
      () => db.fineTuningJob.findUniqueOrThrow({ where: { id: job.id }, include: { checkpoints: true } }),
      (r) => r.status === "running" && r.checkpoints.length > 0,
      90_000,
    );
    expect(atCheckpoint.value.checkpoints.length).toBeGreaterThan(0);
    nodeProc!.kill("SIGKILL");
    await exited(nodeProc!);
    await new Promise((r) => setTimeout(r, 1500)); // the node is away: the worker must wait, not fail
    await startNode();

    const { value: done } = await until(() => openai.fineTuning.jobs.retrieve(job.id), ended, 180_000);
    const checkpoints = await db.fineTuningCheckpoint.findMany({ where: { jobId: job.id } });
    expect(new Set(checkpoints.map((c) => c.stepNumber)).size).toBe(checkpoints.length);
    await expectExactlyOnce(openai, done, workspace.id, "10");
  }, 300_000);
});
