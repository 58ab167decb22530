// The batch API with the official SDK: a file of chat, responses and embeddings lines run to
// completion by the gateway's batch workers, each line billed once at the model's batch price
// (half the live price by default), exactly; the output and error files in OpenAI's line format;
// a bad line failing the batch at validation; a cancel billing only the lines done; bad input
// named by its param; batches no other workspace can reach; and a worker killed with -9 mid-batch,
// whose batch another worker resumes without running any line's charge twice.
import { spawn, type ChildProcess } from "node:child_process";
import Decimal from "decimal.js";
import OpenAI, { toFile } from "openai";
import { afterAll, describe, expect, it } from "vitest";
import { setWorkspaceLimits } from "../../server/identity/plans/manage-plans";
import { db } from "../../server/infra/db/client";
import { projectRoot } from "../../server/infra/paths";
import { readdirSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { batchWorkWaiting } from "../../server/batches/demand";
import { expectApiError, newWorkspace, until } from "../helpers";
import { startGatewayInstance } from "../instances";
import { freshWindow } from "../plans-fixtures";

type Line = { custom_id: string; method: string; url: string; body: Record<string, unknown> };

const chatLine = (id: string, text: string, model = "local-chat-sim"): Line => ({
  custom_id: id,
  method: "POST",
  url: "/v1/chat/completions",
  body: { model, messages: [{ role: "user", content: text }], max_tokens: 12 },
});

async function upload(openai: OpenAI, lines: (Line | string)[], name = "batch.jsonl") {
  const text = lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n";
  return openai.files.create({ file: await toFile(Buffer.from(text), name), purpose: "batch" });
}

async function waitForBatch(openai: OpenAI, id: string, done: (s: string) => boolean = (s) => ["completed", "failed", "expired", "cancelled"].includes(s), timeoutMs = 90_000) {
  const start = Date.now();
  for (;;) {
    const batch = await openai.batches.retrieve(id);
    if (done(batch.status)) return batch;
    if (Date.now() - start > timeoutMs) throw new Error(`batch ${id} still ${batch.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function jsonl(openai: OpenAI, fileId: string | null | undefined) {
  if (!fileId) return [];
  const text = await (await openai.files.content(fileId)).text();
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; custom_id: string; response: { status_code: number; request_id: string; body: Record<string, unknown> } | null; error: { code: string } | null });
}

const eventsOf = (workspaceId: string, batchId: string) => db.usageEvent.findMany({ where: { workspaceId, id: { startsWith: `${batchId}:` } } });

describe("batches", () => {
  it("chat, responses and embeddings batches run to completion, each line billed once at half the live price", async () => {
    const { workspace, openai } = await newWorkspace("5");
    // The same request live, for its price.
    const live = await openai.chat.completions.create({ model: "local-chat-sim", messages: [{ role: "user", content: "hello batch 0" }], max_tokens: 12 });
    const liveEvent = await db.usageEvent.findFirstOrThrow({ where: { workspaceId: workspace.id, endpoint: "/v1/chat/completions" } });

    const chatFile = await upload(openai, [chatLine("c0", "hello batch 0"), chatLine("c1", "hello batch 1"), chatLine("c2", "no such model", "no-such-model")]);
    const respFile = await upload(openai, [
      { custom_id: "r0", method: "POST", url: "/v1/responses", body: { model: "local-chat-sim", input: "hello responses", max_output_tokens: 400 } },
      { custom_id: "r1", method: "POST", url: "/v1/responses", body: { model: "local-chat-sim", input: "hello again", max_output_tokens: 400, stream: true } },
    ]);
    const embFile = await upload(openai, [
      { custom_id: "e0", method: "POST", url: "/v1/embeddings", body: { model: "local-embed-ngram", input: "one" } },
      { custom_id: "e1", method: "POST", url: "/v1/embeddings", body: { model: "local-embed-ngram", input: ["two", "three"] } },
    ]);
    // One after the other, so the list's order (newest first) is known.
    const created = [
      await openai.batches.create({ input_file_id: chatFile.id, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: { team: "search" } }),
      await openai.batches.create({ input_file_id: respFile.id, endpoint: "/v1/responses", completion_window: "24h" }),
      await openai.batches.create({ input_file_id: embFile.id, endpoint: "/v1/embeddings", completion_window: "24h" }),
    ] as [OpenAI.Batch, OpenAI.Batch, OpenAI.Batch];
    expect(created[0]).toMatchObject({ object: "batch", status: "validating", endpoint: "/v1/chat/completions", input_file_id: chatFile.id, completion_window: "24h", metadata: { team: "search" } });
    expect(created[0].id).toMatch(/^batch_/);
    expect(created[0].expires_at! - created[0].created_at).toBe(24 * 3600);

    const [chat, resp, emb] = (await Promise.all(created.map((b) => waitForBatch(openai, b.id)))) as [OpenAI.Batch, OpenAI.Batch, OpenAI.Batch];
    expect(chat).toMatchObject({ status: "completed", request_counts: { total: 3, completed: 2, failed: 1 } });
    expect(chat.in_progress_at).toBeGreaterThanOrEqual(chat.created_at);
    expect(chat.completed_at).toBeGreaterThanOrEqual(chat.in_progress_at!);
    expect(resp).toMatchObject({ status: "completed", request_counts: { total: 2, completed: 2, failed: 0 } });
    expect(emb).toMatchObject({ status: "completed", request_counts: { total: 2, completed: 2, failed: 0 } });

    // Output: the 2xx lines in input order, OpenAI's line format; errors in the error file.
    const out = await jsonl(openai, chat.output_file_id);
    expect(out.map((l) => l.custom_id)).toEqual(["c0", "c1"]);
    expect(out[0]!.id).toMatch(/^batch_req_/);
    expect(out[0]!.response).toMatchObject({ status_code: 200, body: { object: "chat.completion", model: "local-chat-sim" } });
    expect(out[0]!.error).toBeNull();
    expect((out[0]!.response!.body.choices as { message: { content: string } }[])[0]!.message.content).toBe(live.choices[0]!.message.content);
    const errs = await jsonl(openai, chat.error_file_id);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ custom_id: "c2", response: { status_code: 404, body: { error: { code: "model_not_found", param: "model" } } } });
    const outputFile = await openai.files.retrieve(chat.output_file_id!);
    expect(outputFile).toMatchObject({ purpose: "batch_output", filename: `${chat.id}_output.jsonl` });
    expect((await jsonl(openai, resp.output_file_id)).map((l) => [l.custom_id, l.response!.body.object, l.response!.body.status])).toEqual([
      ["r0", "response", "completed"],
      ["r1", "response", "completed"],
    ]);
    expect((await jsonl(openai, emb.output_file_id)).map((l) => (l.response!.body.data as unknown[]).length)).toEqual([1, 2]);
    expect(resp.error_file_id).toBeNull();

    // Billing: one usage event per line that ran, at the model's batch fraction (0.5) of the live price, exactly.
    const chatEvents = await eventsOf(workspace.id, chat.id);
    expect(chatEvents.map((e) => e.id).sort()).toEqual([`${chat.id}:0`, `${chat.id}:1`]);
    expect(chatEvents.find((e) => e.id === `${chat.id}:0`)!.cost.toString()).toBe(new Decimal(liveEvent.cost.toString()).times("0.5").toString());
    expect(chatEvents[0]!.tags).toEqual({ batch: chat.id });
    for (const b of [chat, resp, emb]) {
      const events = await eventsOf(workspace.id, b.id);
      expect(events).toHaveLength(b.request_counts!.completed);
      const sum = events.reduce((s, e) => s.plus(e.cost.toString()), new Decimal(0));
      expect(new Decimal((b as unknown as { cost: string }).cost).toString()).toBe(sum.toString());
    }
    expect(chat.usage!.input_tokens).toBe(chatEvents.reduce((s, e) => s + e.inputTokens, 0));
    expect(chat.usage!.output_tokens).toBe(chatEvents.reduce((s, e) => s + e.outputTokens, 0));

    // The list, newest first, with pages.
    const page = await openai.batches.list({ limit: 2 });
    expect(page.data.map((b) => b.id)).toEqual([...created].reverse().slice(0, 2).map((b) => b.id));
    expect(page.has_more).toBe(true);
    const rest = await openai.batches.list({ limit: 2, after: page.data[1]!.id });
    expect(rest.data.map((b) => b.id)).toEqual([created[0].id]);
  }, 120_000);

  it("a /v1/messages batch answers in Anthropic's shapes, its failed lines too", async () => {
    const { openai } = await newWorkspace("1");
    const message = (id: string, model: string) => ({ custom_id: id, method: "POST", url: "/v1/messages", body: { model, max_tokens: 16, messages: [{ role: "user", content: "hello" }] } });
    const file = await upload(openai, [message("m0", "local-chat-sim"), message("m1", "no-such-model")]);
    const batch = await openai.batches.create({ input_file_id: file.id, endpoint: "/v1/messages" as "/v1/chat/completions", completion_window: "24h" });
    const done = await waitForBatch(openai, batch.id);
    expect(done).toMatchObject({ status: "completed", request_counts: { total: 2, completed: 1, failed: 1 } });
    expect((await jsonl(openai, done.output_file_id))[0]!.response).toMatchObject({ status_code: 200, body: { type: "message", role: "assistant" } });
    const [failed] = await jsonl(openai, done.error_file_id);
    expect(failed!.response).toMatchObject({ status_code: 404, body: { type: "error", error: { type: "not_found_error" }, request_id: failed!.response!.request_id } });
  }, 60_000);

  it("a bad line fails the batch at validation, naming the line; nothing runs or is charged", async () => {
    const { workspace, openai } = await newWorkspace("1");
    const file = await upload(openai, [
      chatLine("a", "fine"),
      "{not json",
      { custom_id: "a", method: "POST", url: "/v1/chat/completions", body: { model: "local-chat-sim", messages: [] } },
      { custom_id: "b", method: "POST", url: "/v1/embeddings", body: { model: "local-chat-sim" } },
    ]);
    const batch = await openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    const failed = await waitForBatch(openai, batch.id);
    expect(failed.status).toBe("failed");
    expect(failed.failed_at).toBeGreaterThan(0);
    expect(failed.errors!.data!.map((e) => [e.line, e.code])).toEqual([
      [2, "invalid_json_line"],
      [3, "duplicate_custom_id"],
      [4, "mismatched_endpoint"],
    ]);
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  }, 60_000);

  it("bad input is refused with the param named, and nothing is created", async () => {
    const { openai } = await newWorkspace("1");
    const file = await upload(openai, [chatLine("a", "x")]);
    const notes = await openai.files.create({ file: await toFile(Buffer.from(JSON.stringify(chatLine("a", "x"))), "n.jsonl"), purpose: "user_data" });
    await expectApiError(openai.batches.create({ input_file_id: "file-nope", endpoint: "/v1/chat/completions", completion_window: "24h" }), 404, "input_file_id");
    await expectApiError(openai.batches.create({ input_file_id: notes.id, endpoint: "/v1/chat/completions", completion_window: "24h" }), 400, "input_file_id");
    await expectApiError(openai.batches.create({ input_file_id: file.id, endpoint: "/v1/videos", completion_window: "24h" }), 400, "endpoint");
    await expectApiError(openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "48h" as "24h" }), 400, "completion_window");
    await expectApiError(openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: { n: 1 as unknown as string } }), 400, "metadata.n");
    await expectApiError(openai.batches.retrieve("batch_nope"), 404, "batch_id");
    expect((await openai.batches.list()).data).toEqual([]);
  });

  it("a cancel stops further lines; only the lines done are kept and billed", async () => {
    const { workspace, openai } = await newWorkspace("5");
    const lines = Array.from({ length: 24 }, (_, i) => chatLine(`s${i}`, `slow ${i} [sim:slow]`));
    const batch = await openai.batches.create({ input_file_id: (await upload(openai, lines)).id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    await waitForBatch(openai, batch.id, (s) => s === "in_progress");
    const cancelling = await openai.batches.cancel(batch.id);
    expect(cancelling.status).toBe("cancelling");
    expect(cancelling.cancelling_at).toBeGreaterThan(0);
    const cancelled = await waitForBatch(openai, batch.id);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.cancelled_at).toBeGreaterThanOrEqual(cancelled.cancelling_at!);
    const done = await db.batchLine.count({ where: { batchId: batch.id } });
    expect(done).toBeLessThan(24);
    expect(cancelled.request_counts).toEqual({ total: 24, completed: done, failed: 0 });
    expect(await eventsOf(workspace.id, batch.id)).toHaveLength(done);
    expect(await jsonl(openai, cancelled.output_file_id)).toHaveLength(done);
    // Nothing more runs after the end, and an ended batch cannot be cancelled again.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await db.batchLine.count({ where: { batchId: batch.id } })).toBe(done);
    await expectApiError(openai.batches.cancel(batch.id), 409, "batch_id");
  }, 90_000);

  it("no workspace reaches another's batches", async () => {
    const a = await newWorkspace("2");
    const b = await newWorkspace("2");
    const batch = await a.openai.batches.create({ input_file_id: (await upload(a.openai, [chatLine("x", "hi")])).id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    await expectApiError(b.openai.batches.retrieve(batch.id), 404, "batch_id");
    await expectApiError(b.openai.batches.cancel(batch.id), 404, "batch_id");
    expect((await b.openai.batches.list()).data).toEqual([]);
    // Nor another's files as input.
    const aFile = await upload(a.openai, [chatLine("y", "hi")]);
    await expectApiError(b.openai.batches.create({ input_file_id: aFile.id, endpoint: "/v1/chat/completions", completion_window: "24h" }), 404, "input_file_id");
    const done = await waitForBatch(a.openai, batch.id);
    await expectApiError(b.openai.files.content(done.output_file_id!), 404, "file_id");
  }, 60_000);
});

describe("the background tier", () => {
  it("batch lines take at most half of a key's requests per minute: its live calls keep the rest, and the batch finishes in the next window", async () => {
    const { workspace, openai } = await newWorkspace("2");
    await setWorkspaceLimits(workspace.id, { rpm: 4 });
    const lines = [chatLine("t0", "one"), chatLine("t1", "two"), chatLine("t2", "three")];
    const file = await upload(openai, lines);
    const window = await freshWindow(25_000);
    const batch = await openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    await waitForLines(batch.id, 2);
    // Two lines used half of the window; the third waits for the next one instead of taking the live half.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await db.batchLine.count({ where: { batchId: batch.id } })).toBe(2);
    for (const i of [0, 1]) await openai.chat.completions.create({ model: "local-chat-sim", messages: [{ role: "user", content: `live ${i}` }], max_tokens: 4 });
    expect(Date.now() - window, "still in the same window").toBeLessThan(60_000);
    const done = await waitForBatch(openai, batch.id, undefined, 90_000);
    expect(done).toMatchObject({ status: "completed", request_counts: { total: 3, completed: 3, failed: 0 } });
    const third = await db.batchLine.findUniqueOrThrow({ where: { batchId_index: { batchId: batch.id, index: 2 } } });
    expect(third.createdAt.getTime(), "the third line ran in the next window").toBeGreaterThanOrEqual(window + 60_000);
  }, 150_000);
});

type Worker = { proc: ChildProcess; id: string };
const workers: Worker[] = [];
afterAll(() => {
  for (const w of workers) w.proc.kill("SIGKILL");
});

async function startWorker(): Promise<Worker> {
  const proc = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
    cwd: projectRoot,
    env: { ...process.env, VIDEO_WORKERS: "1", BATCH_WORKERS: "1", BATCH_CONCURRENCY: "2" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const id = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${output.join("")}`)), 30_000);
    proc.stdout!.on("data", (chunk: Buffer) => {
      output.push(chunk.toString());
      const m = output.join("").match(/worker (\S+) ready/);
      if (m) (clearTimeout(timer), resolve(m[1]!));
    });
    proc.stderr!.on("data", (c: Buffer) => output.push(c.toString()));
    proc.once("exit", (code) => reject(new Error(`worker exited (${code}): ${output.join("")}`)));
  });
  const w = { proc, id };
  workers.push(w);
  return w;
}

/** Creates batches of ten slow lines until `worker` holds one; all created, and the held one's id and tag. */
async function batchHeldBy(worker: Worker, workspaceId: string, openai: OpenAI) {
  const lines = (tag: string) => Array.from({ length: 10 }, (_, i) => chatLine(`${tag}${i}`, `${tag} ${i} [sim:slow]`));
  // The gateway's own batch process takes some, the outside worker the others (or all go outside).
  const batches = [];
  for (let i = 0; i < 4; i++) {
    batches.push(await openai.batches.create({ input_file_id: (await upload(openai, lines(`k${i}`))).id, endpoint: "/v1/chat/completions", completion_window: "24h" }));
    const deadline = Date.now() + 4000;
    while (Date.now() < deadline) {
      const row = await db.batch.findFirst({ where: { workspaceId, workerId: worker.id, status: "in_progress" }, select: { id: true } });
      if (row) {
        const tag = `k${batches.findIndex((b) => b.id === row.id)}`;
        return { batches, held: row.id, expected: lines(tag).map((l) => l.custom_id).sort() };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error("no batch was taken by the worker");
}

/** The batch ran every line once: each in the output once, one usage event per line, and the batch's cost their sum. */
async function expectEveryLineOnce(openai: OpenAI, workspaceId: string, batchId: string, customIds: string[]) {
  const done = await waitForBatch(openai, batchId, undefined, 120_000);
  expect(done.status).toBe("completed");
  expect(done.request_counts).toEqual({ total: 10, completed: 10, failed: 0 });
  expect((await jsonl(openai, done.output_file_id)).map((l) => l.custom_id).sort()).toEqual(customIds);
  const events = await eventsOf(workspaceId, batchId);
  expect(events.map((e) => e.id).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `${batchId}:${i}`).sort());
  const sum = events.reduce((s, e) => s.plus(e.cost.toString()), new Decimal(0));
  expect(new Decimal((done as unknown as { cost: string }).cost).toString()).toBe(sum.toString());
}

describe("a batch worker that stops mid-batch", () => {
  it("killed with -9: its batch is resumed by another worker where it stopped, every line run, none charged twice", async () => {
    const { workspace, openai } = await newWorkspace("5");
    const victim = await startWorker();
    const { batches, held, expected } = await batchHeldBy(victim, workspace.id, openai);
    // Let it finish some lines, then kill it mid-line.
    await waitForLines(held, 2);
    victim.proc.kill("SIGKILL");
    const before = await db.batchLine.count({ where: { batchId: held } });
    await startWorker();

    await expectEveryLineOnce(openai, workspace.id, held, expected);
    const row = await db.batch.findUniqueOrThrow({ where: { id: held } });
    expect(row.attempts).toBeGreaterThanOrEqual(2);
    expect(row.workerId, `attempts ${row.attempts}, killed ${victim.id} after ${before} lines`).not.toBe(victim.id);
    expect(before).toBeGreaterThanOrEqual(2);
    await Promise.all(batches.map((b) => waitForBatch(openai, b.id, undefined, 120_000)));
  }, 240_000);

  it("stopped with SIGTERM: it starts no further line and exits, and the batch is resumed elsewhere, not left in progress", async () => {
    const { workspace, openai } = await newWorkspace("5");
    const leaving = await startWorker();
    const { batches, held, expected } = await batchHeldBy(leaving, workspace.id, openai);
    await waitForLines(held, 2);
    const exited = new Promise<number | null>((resolve) => leaving.proc.once("exit", (code) => resolve(code)));
    leaving.proc.kill("SIGTERM");
    expect(await exited, "a stopped worker exits cleanly").toBe(0);
    await startWorker();

    await expectEveryLineOnce(openai, workspace.id, held, expected);
    const row = await db.batch.findUniqueOrThrow({ where: { id: held } });
    expect(row.attempts).toBeGreaterThanOrEqual(2);
    await Promise.all(batches.map((b) => waitForBatch(openai, b.id, undefined, 120_000)));
  }, 240_000);
});

async function waitForLines(batchId: string, n: number) {
  const deadline = Date.now() + 60_000;
  while ((await db.batchLine.count({ where: { batchId } })) < n) {
    if (Date.now() > deadline) throw new Error(`batch ${batchId} did not reach ${n} lines`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The batch processes of a gateway instance: its children started with GATEWAY_PROCESS_ROLE=batches. */
function batchProcesses(root: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === root && readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes("GATEWAY_PROCESS_ROLE=batches")) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe("an instance's batch process (BATCH_PROCESS=true)", () => {
  it("runs only while there are batches: none at boot, started when one is created, ended once idle and not replaced", async () => {
    // The batches of the tests above are finished, so nothing is waiting that the instance would start one for.
    const quiet = await until(() => batchWorkWaiting(), (waiting) => !waiting, 60_000);
    const unfinished = await db.batch.findMany({ where: { status: { in: ["validating", "in_progress", "finalizing", "cancelling"] } }, select: { id: true, status: true, workerId: true, attempts: true, total: true, completed: true, failed: true, createdAt: true } });
    expect(quiet.value, JSON.stringify(unfinished)).toBe(false);
    const instance = await startGatewayInstance({ env: { BATCH_WORKERS: "1", BATCH_PROCESS: "true", BATCH_PROCESS_IDLE_SECONDS: "1" } });
    try {
      const root = instance.child.proc.pid!;
      await new Promise((r) => setTimeout(r, 1500));
      expect(batchProcesses(root), "no batch process while no batch waits").toEqual([]);
      const { secret } = await newWorkspace("5");
      const openai = new OpenAI({ apiKey: secret, baseURL: `${instance.url}/v1` });
      const file = await upload(openai, [chatLine("p0", "hello process"), chatLine("p1", "hello process again")]);
      const batch = await openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
      const started = await until(async () => batchProcesses(root), (pids) => pids.length === 1, 20_000);
      expect(started.value).toHaveLength(1);
      const done = await waitForBatch(openai, batch.id);
      expect(done.status).toBe("completed");
      expect(done.request_counts?.completed).toBe(2);
      // Idle for BATCH_PROCESS_IDLE_SECONDS with nothing waiting: it ends, and is not started again.
      const ended = await until(async () => batchProcesses(root), (pids) => pids.length === 0, 30_000);
      expect(ended.value).toEqual([]);
      // Its last log line comes through the instance's output pipe a moment after the process is gone.
      const said = await until(async () => instance.output(), (out) => /idle: no batch to run/.test(out), 5000);
      expect(said.value).toMatch(/idle: no batch to run/);
      await new Promise((r) => setTimeout(r, 2500));
      expect(batchProcesses(root), "an idle batch process is not replaced").toEqual([]);
    } finally {
      await instance.kill();
    }
  }, 120_000);
});

describe("batches in an instance's first process (BATCH_PROCESS=false, the default)", () => {
  it("runs them there: no batch process is started, and every line is answered and billed once", async () => {
    const instance = await startGatewayInstance({ env: { BATCH_WORKERS: "2", BATCH_PROCESS: "false", JOB_POLL_INTERVAL_SECONDS: "1" } });
    try {
      const root = instance.child.proc.pid!;
      const ours = `${hostname()}:${root}`;
      const { workspace, secret } = await newWorkspace("5");
      const openai = new OpenAI({ apiKey: secret, baseURL: `${instance.url}/v1` });
      // Lines that wait 2 s at the node ([sim:slow]), so that a batch holds the worker that took
      // it: the test gateway's batch worker (one batch at a time) cannot take all four.
      const created = [];
      for (let b = 0; b < 4; b++) {
        const file = await upload(openai, [0, 1, 2, 3].map((i) => chatLine(`b${b}-${i}`, `[sim:slow] line ${b}.${i}`)));
        created.push(await openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" }));
      }
      let spawned = false;
      const watching = setInterval(() => (spawned ||= batchProcesses(root).length > 0), 200);
      try {
        for (const batch of created) {
          const done = await waitForBatch(openai, batch.id);
          expect(done.status, JSON.stringify(done)).toBe("completed");
          expect(done.request_counts).toEqual({ total: 4, completed: 4, failed: 0 });
        }
      } finally {
        clearInterval(watching);
      }
      expect(spawned, "no batch process under the instance").toBe(false);
      const rows = await db.batch.findMany({ where: { id: { in: created.map((b) => b.id) } }, select: { workerId: true } });
      expect(rows.filter((r) => r.workerId === ours).length, instance.output()).toBeGreaterThan(0);
      // Billed once per line.
      for (const batch of created) {
        const { value: events } = await until(() => eventsOf(workspace.id, batch.id), (e) => e.length >= 4, 10_000);
        expect(events.map((e) => e.id).sort()).toEqual([0, 1, 2, 3].map((i) => `${batch.id}:${i}`));
      }
    } finally {
      await instance.kill();
    }
  }, 120_000);
});
