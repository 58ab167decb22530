// An instance killed with SIGKILL under load: every answer a client received in full was billed
// exactly once, at the cost its usage implies, and nothing was billed twice. Either the answer
// waited for its usage commit (USAGE_SPOOL_DIR=off), or its usage was written to the process's
// spool first and the next process on the host commits it (the default, docs/BILLING.md): a
// kill can lose the answer of a billed call, never the bill of an answered one.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, fetch as fetchWith } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { formatMoney, money } from "../../server/kernel/money";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { checkNode } from "../../server/routing/nodes/health-check";
import { addNode } from "../../server/routing/nodes/nodes";
import { chatModelCard } from "../fakes/chat-model-card";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { client, newWorkspace, until } from "../helpers";
import { chatCall, chatCost, startGatewayInstance, type ChatOutcome, type GatewayInstance, type TokenPrices } from "../instances";

/** Fast answers from the built-in node, with usage that varies from call to call. */
const FAST = "local-chat-sim";
/** A stand-in node streaming 20 deltas 40 ms apart, so that streams are cut off mid-way by the kill. */
const SLOW = "test-instances-sigkill-chat";
const CONCURRENCY = 24;
/** The kill comes once this many answers arrived in full. */
const ANSWERS_BEFORE_KILL = 80;

let slow: FakeUpstream;
const instances: GatewayInstance[] = [];

async function instance(env: Record<string, string> = {}): Promise<GatewayInstance> {
  const started = await startGatewayInstance({ env });
  instances.push(started);
  return started;
}

beforeAll(async () => {
  slow = await startFakeUpstream(SLOW);
  slow.mode = "slow-stream";
  await db.model.create({ data: cardToRow(chatModelCard(SLOW)) });
  const { node } = await addNode({ name: `sigkill-${Math.random().toString(36).slice(2, 8)}`, url: slow.url, city: "Lyon", country: "FR" });
  await checkNode({ id: node.id, baseUrl: slow.url, apiKeyEncrypted: null, status: "unknown" });
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.nodesChanged);
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.kill()));
  await db.node.deleteMany({ where: { baseUrl: slow.url } });
  await db.model.deleteMany({ where: { id: SLOW } });
  await notify(db, Channel.nodesChanged);
  await notify(db, Channel.catalogChanged);
  await slow?.close();
});

/** The i-th call of a client: plain or streamed (with and without usage), fast or slow. */
function request(i: number): Record<string, unknown> {
  const kind = i % 5;
  const model = kind === 4 || kind === 3 ? SLOW : FAST;
  const body: Record<string, unknown> = { model, messages: [{ role: "user", content: `call ${i}` }] };
  if (kind === 1 || kind === 3) return { ...body, stream: true, stream_options: { include_usage: true } };
  if (kind === 2) return { ...body, stream: true };
  return body;
}

type Outcome = { body: Record<string, unknown>; outcome: ChatOutcome };

/** 24 clients call `url` in a loop until `kill` (called once 80 answers arrived in full) is done. */
async function loadUntilKilled(url: string, secret: string, kill: () => Promise<void>): Promise<Outcome[]> {
  // The instance routes to the slow node before the load starts.
  const ready = await until(() => chatCall(url, secret, { model: SLOW, messages: [{ role: "user", content: "ready?" }] }), (o) => o.status === 200, 10_000);
  expect(ready.value.status).toBe(200);
  const outcomes: Outcome[] = [{ body: { model: SLOW }, outcome: ready.value }];
  let killed = false;
  let next = 0;
  const clientLoop = async () => {
    while (!killed) {
      const body = request(next++);
      outcomes.push({ body, outcome: await chatCall(url, secret, body) });
    }
  };
  const loops = Array.from({ length: CONCURRENCY }, clientLoop);
  const answered = await until(async () => outcomes.filter((o) => o.outcome.complete).length, (n) => n >= ANSWERS_BEFORE_KILL, 30_000);
  expect(answered.value).toBeGreaterThanOrEqual(ANSWERS_BEFORE_KILL);
  killed = true;
  await kill();
  await Promise.all(loops);
  return outcomes;
}

/** Answered calls whose usage event is not in the database (yet). */
async function unbilled(workspaceId: string, outcomes: Outcome[]): Promise<number> {
  const ids = new Set((await db.usageEvent.findMany({ where: { workspaceId }, select: { id: true } })).map((e) => e.id));
  return outcomes.filter((o) => o.outcome.complete && !ids.has(o.outcome.requestId!)).length;
}

/** Every answer received in full billed once at its usage's cost, nothing twice, and the balance is credits minus usage. */
async function expectBilledExactly(workspaceId: string, outcomes: Outcome[], prices: Map<string, TokenPrices>): Promise<void> {
  const complete = outcomes.filter((o) => o.outcome.complete);
  const cut = outcomes.filter((o) => !o.outcome.complete);
  const events = await db.usageEvent.findMany({ where: { workspaceId } });
  const byId = new Map(events.map((e) => [e.id, e]));
  console.log(
    `${outcomes.length} calls: ${complete.length} answered in full (${complete.filter((o) => o.outcome.stream).length} streamed), ` +
      `${cut.length} cut off by the kill (${cut.filter((o) => o.outcome.status === 200).length} after their answer had begun, ` +
      `${cut.filter((o) => byId.has(o.outcome.requestId ?? "")).length} of these billed); ${events.length} usage events`,
  );
  // The kill came under load: calls were in flight, some of them streams already under way.
  expect(cut.length).toBeGreaterThanOrEqual(1);
  // ...and the kill is all that went wrong.
  expect(cut.filter((o) => o.outcome.brokenOff === null).map((o) => o.outcome)).toEqual([]);

  for (const { body, outcome } of complete) {
    const label = `${outcome.requestId} (${JSON.stringify(body)})`;
    expect(events.filter((e) => e.id === outcome.requestId), label).toHaveLength(1);
    const event = byId.get(outcome.requestId!)!;
    expect(event.modelId, label).toBe(body.model);
    const pricing = prices.get(event.modelId)!;
    // A stream without `include_usage` shows the client no usage: its event's own token counts are priced instead.
    const usage = outcome.usage ?? {
      prompt_tokens: event.inputTokens,
      completion_tokens: event.outputTokens,
      prompt_tokens_details: { cached_tokens: event.cachedTokens },
      completion_tokens_details: { reasoning_tokens: event.reasoningTokens },
    };
    if (outcome.usage) expect([event.inputTokens, event.outputTokens], label).toEqual([usage.prompt_tokens, usage.completion_tokens]);
    expect(formatMoney(event.cost), label).toBe(formatMoney(chatCost(pricing, usage)));
  }
  // Nothing is billed twice, and no event is charged to the balance twice or not at all.
  const twice = await db.$queryRaw<{ id: string }[]>`SELECT "id" FROM "UsageEvent" WHERE "workspaceId" = ${workspaceId} GROUP BY "id" HAVING COUNT(*) > 1`;
  expect(twice).toEqual([]);
  const seen = new Set(outcomes.map((o) => o.outcome.requestId));
  expect(events.filter((e) => !seen.has(e.id)).length, "events of calls whose answer never began").toBeLessThanOrEqual(cut.filter((o) => o.outcome.status === null).length);
  const { balance } = await db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { balance: true } });
  const usage = events.reduce((acc, e) => acc.plus(money(e.cost)), money(0));
  expect(formatMoney(balance)).toBe(formatMoney(money(10).minus(usage)));
}

async function workspaceWithPrices(name: string) {
  const { workspace, secret } = await newWorkspace("10", name);
  const prices = new Map<string, TokenPrices>();
  for (const id of [FAST, SLOW]) prices.set(id, ((await client(secret).models.retrieve(id)) as unknown as { pricing: TokenPrices }).pricing);
  return { workspace, secret, prices };
}

/** The gateway's other processes (the children of its first). */
function othersOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
}

describe("an instance killed with SIGKILL under load", () => {
  it("answers waiting for their commit: bills every answer received in full exactly once, at the cost of its usage, and nothing twice", async () => {
    const { workspace, secret, prices } = await workspaceWithPrices("sigkill");
    const gateway = await instance({ USAGE_SPOOL_DIR: "off" });
    const outcomes = await loadUntilKilled(gateway.url, secret, gateway.kill);
    expect(await unbilled(workspace.id, outcomes)).toBe(0);
    await expectBilledExactly(workspace.id, outcomes, prices);
  }, 90_000);

  it("with the usage spool: what the killed process had not committed is committed by the next one started on the host", async () => {
    const { workspace, secret, prices } = await workspaceWithPrices("sigkill spool");
    const spool = mkdtempSync(path.join(tmpdir(), "usage-spool-"));
    // No commit comes before the kill (ten minutes behind the answers): all the answered usage is in the spool.
    const env = { USAGE_SPOOL_DIR: spool, USAGE_COMMIT_DELAY_MS: "600000" };
    const gateway = await instance(env);
    const outcomes = await loadUntilKilled(gateway.url, secret, gateway.kill);
    const left = await unbilled(workspace.id, outcomes);
    console.log(`${left} answered calls not yet committed when the process was killed`);
    expect(left).toBeGreaterThan(0);
    // The next process on the host replays the spool before it serves.
    await instance(env);
    expect(await unbilled(workspace.id, outcomes)).toBe(0);
    await expectBilledExactly(workspace.id, outcomes, prices);
    // The replayed files are gone; the new process has written nothing.
    expect(readdirSync(spool, { recursive: true }).filter((f) => String(f).endsWith(".jsonl"))).toEqual([]);
  }, 120_000);

  it("with the usage spool and two processes: the second process killed mid-load is replaced, and its replacement commits what it left", async () => {
    const { workspace, secret, prices } = await workspaceWithPrices("sigkill second process");
    const spool = mkdtempSync(path.join(tmpdir(), "usage-spool-"));
    const gateway = await instance({ USAGE_SPOOL_DIR: spool, USAGE_COMMIT_DELAY_MS: "3000", WEB_CONCURRENCY: "2", LOG_REQUESTS: "true" });
    // The first process hands connections out in turn once the second is ready.
    await until(async () => gateway.output(), (text) => /\(process 1\) ready/.test(text), 20_000);
    const first = gateway.child.proc.pid!;
    const [second] = othersOf(first);
    expect(second).toBeGreaterThan(0);
    // The first process hands connections to the second once it has heard that it is ready, which
    // on a loaded machine can come after the second says so: new connections until one is served there.
    const servedBy = (pid: number, route: string) => new RegExp(`"pid":${pid},[^\\n]*"path":"${route}"[^\\n]*"msg":"request"`);
    const handedOut = await until(
      async () => {
        const fresh = new Agent();
        await fetchWith(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` }, dispatcher: fresh }).then((r) => r.text(), () => "");
        await fresh.close();
        return gateway.output();
      },
      (text) => servedBy(second!, "/v1/models").test(text),
      20_000,
    );
    expect(handedOut.value).toMatch(servedBy(second!, "/v1/models"));
    const outcomes = await loadUntilKilled(gateway.url, secret, async () => void process.kill(second!, "SIGKILL"));
    // The first process starts a replacement, which replays the spool of the process it replaces.
    const replaced = await until(async () => othersOf(first), (pids) => pids.length === 1 && pids[0] !== second, 20_000);
    expect(replaced.value).toHaveLength(1);
    const committed = await until(() => unbilled(workspace.id, outcomes), (n) => n === 0, 20_000);
    expect(committed.value).toBe(0);
    await expectBilledExactly(workspace.id, outcomes, prices);
    // The killed process had answered calls, and its spool file was claimed, replayed and removed
    // (it may hold nothing new, if its last batch was committed just before the kill).
    expect(gateway.output()).toMatch(servedBy(second!, "/v1/chat/completions"));
    const left = await until(async () => readdirSync(spool, { recursive: true }).filter((f) => String(f).includes(`usage~${second}.`)), (files) => files.length === 0, 20_000);
    expect(left.value).toEqual([]);
  }, 120_000);
});
