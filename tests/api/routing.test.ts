// Routing over nodes, failover, the circuit breaker, streaming failures, client disconnects and
// billing exactness, with stand-in nodes that misbehave on cue. Each test model here exists
// only for this file, so no other test is routed to these nodes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { checkAllNodes } from "../../server/routing/nodes/health-check";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { formatMoney, money } from "../../server/kernel/money";
import { startFakeUpstream, FAKE_USAGE, type FakeUpstream } from "../fakes/upstream";
import { newWorkspace, until } from "../helpers";
import { chatModelCard } from "../fakes/chat-model-card";

const FAILOVER_MODEL = "test-failover-chat";
const FAKE_MODEL = "test-fake-chat";
let flaky: FakeUpstream;
let steady: FakeUpstream;
const nodeIds: string[] = [];

const card = (id: string) => chatModelCard(id);

beforeAll(async () => {
  await db.model.create({ data: cardToRow(card(FAILOVER_MODEL)) });
  await db.model.create({ data: cardToRow(card(FAKE_MODEL)) });
  flaky = await startFakeUpstream(FAILOVER_MODEL);
  steady = await startFakeUpstream(FAKE_MODEL);
  // The flaky node has the larger weight, so it is always tried first.
  nodeIds.push((await addNode({ name: "flaky", url: flaky.url, city: "Madrid", country: "ES", weight: 100 })).node.id);
  nodeIds.push((await addNode({ name: "steady", url: steady.url, city: "Madrid", country: "ES" })).node.id);
  // The built-in node also serves the failover model, under its own name.
  const local = await db.node.findUniqueOrThrow({ where: { name: "local" } });
  await db.nodeModel.create({ data: { nodeId: local.id, modelId: FAILOVER_MODEL, upstreamModel: "local-chat-sim" } });
  await checkAllNodes();
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.nodesChanged);
});

afterAll(async () => {
  for (const id of nodeIds) await removeNode(id).catch(() => undefined);
  await db.model.deleteMany({ where: { id: { in: [FAILOVER_MODEL, FAKE_MODEL] } } });
  await flaky?.close();
  await steady?.close();
});

const expectedCost = (u: typeof FAKE_USAGE) => formatMoney(money("0.3").times(u.prompt_tokens).plus(money("1.7").times(u.completion_tokens)).dividedBy(1_000_000));

describe("routing", () => {
  it("a node failing before any output is retried once on another node; the model id is the gateway's", async () => {
    flaky.mode = "fail";
    const { openai } = await newWorkspace();
    const before = flaky.calls;
    const completion = await openai.chat.completions.create({ model: FAILOVER_MODEL, messages: [{ role: "user", content: "hello" }] });
    expect(flaky.calls).toBe(before + 1);
    expect(completion.model).toBe(FAILOVER_MODEL);
    expect(completion.choices[0]!.message.content).toBeTruthy();
  });

  it("a 429 or a timeout to first byte is also retried on another node", async () => {
    const { openai } = await newWorkspace();
    for (const mode of ["rate-limited", "hang"] as const) {
      flaky.mode = mode;
      const before = flaky.calls;
      const completion = await openai.chat.completions.create({ model: FAILOVER_MODEL, messages: [{ role: "user", content: mode }] });
      expect(flaky.calls, mode).toBe(before + 1);
      expect(completion.choices[0]!.message.content).toBeTruthy();
    }
    flaky.mode = "ok";
    // two failures in a row: give the breaker a clean slate for the next test
    await new Promise((r) => setTimeout(r, 1600));
  });

  it("a node that answers 429 again and again stays in rotation (rate limits never open the breaker)", async () => {
    const { openai } = await newWorkspace();
    flaky.mode = "rate-limited";
    for (let i = 0; i < 6; i++) {
      const before = flaky.calls;
      const completion = await openai.chat.completions.create({ model: FAILOVER_MODEL, messages: [{ role: "user", content: `limited ${i}` }] });
      expect(flaky.calls, `call ${i} still tries the rate-limited node first`).toBe(before + 1);
      expect(completion.choices[0]!.message.content).toBeTruthy();
    }
    flaky.mode = "ok";
  });

  it("a node that keeps failing is taken out of rotation, and checked back in once healthy", async () => {
    const { openai } = await newWorkspace();
    const call = () => openai.chat.completions.create({ model: FAILOVER_MODEL, messages: [{ role: "user", content: "hi" }] });
    // A success clears the failures earlier tests left on the node (only a successful call does).
    flaky.mode = "ok";
    const beforeOk = flaky.calls;
    await call();
    expect(flaky.calls).toBe(beforeOk + 1);
    flaky.mode = "fail";
    for (let i = 0; i < 3; i++) await call();
    const atOpen = flaky.calls;
    const openedAt = Date.now();
    for (let i = 0; i < 5; i++) await call();
    // Breaker open: not even tried, except for one trial call per cooldown (1.5 s here) that ran out
    // while these calls were made (on a loaded machine five calls can take that long).
    const cooldownsOver = Math.floor((Date.now() - openedAt) / Number(process.env.BREAKER_COOLDOWN_MS ?? 1500));
    expect(flaky.calls - atOpen).toBeLessThanOrEqual(cooldownsOver);
    flaky.mode = "ok";
    const back = await until(async () => (await call(), flaky.calls), (n) => n > atOpen, 10_000);
    expect(back.value).toBeGreaterThan(atOpen);
  });

  it("bills exactly what the node reported, once, with the request id as the event id", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const { data, response } = await openai.chat.completions.create({ model: FAKE_MODEL, messages: [{ role: "user", content: "x" }] }).withResponse();
    expect(data.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } });
    const requestId = response.headers.get("x-request-id")!;
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: requestId } });
    expect(formatMoney(event.cost)).toBe(expectedCost(FAKE_USAGE));
    const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(formatMoney(ws.balance)).toBe(formatMoney(money(1).minus(expectedCost(FAKE_USAGE))));
  });

  it("200 concurrent calls: the summed usage costs equal the balance drop exactly", async () => {
    const { openai, workspace } = await newWorkspace("5");
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        i % 2
          ? openai.chat.completions.create({ model: FAKE_MODEL, messages: [{ role: "user", content: `n${i}` }] })
          : openai.chat.completions.create({ model: FAKE_MODEL, messages: [{ role: "user", content: `s${i}` }], stream: true }).then(async (s) => {
              for await (const _ of s);
            }),
      ),
    );
    expect(results).toHaveLength(200);
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events).toHaveLength(200);
    const sum = events.reduce((acc, e) => acc.plus(money(e.cost)), money(0));
    const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(formatMoney(money(5).minus(ws.balance))).toBe(formatMoney(sum));
    expect(formatMoney(sum)).toBe(formatMoney(money(expectedCost(FAKE_USAGE)).times(200)));
  });

  it("a stream that breaks off mid-way ends with an error frame, then [DONE], and costs nothing", async () => {
    steady.mode = "break-stream";
    const { secret, workspace } = await newWorkspace("1");
    const res = await fetch(`${inject("baseUrl")}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: FAKE_MODEL, messages: [{ role: "user", content: "x" }], stream: true }),
    });
    steady.mode = "ok";
    expect(res.status).toBe(200);
    const text = await res.text();
    const frames = text.split("\n\n").filter(Boolean);
    expect(frames.at(-1)).toBe("data: [DONE]");
    const error = JSON.parse(frames.at(-2)!.slice(6));
    expect(error.error).toMatchObject({ code: "upstream_error", type: "server_error" });
    expect(text.match(/data: \[DONE\]/g)).toHaveLength(1);
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("a client that disconnects mid-stream is still billed for what the node produced", async () => {
    steady.mode = "slow-stream";
    const { secret, workspace } = await newWorkspace("1");
    const controller = new AbortController();
    const res = await fetch(`${inject("baseUrl")}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: FAKE_MODEL, messages: [{ role: "user", content: "x" }], stream: true }),
      signal: controller.signal,
    });
    const requestId = res.headers.get("x-request-id")!;
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    const event = await until(() => db.usageEvent.findUnique({ where: { id: requestId } }), (e) => e !== null, 10_000);
    steady.mode = "ok";
    expect(event.value).not.toBeNull();
    expect(event.value!.outputTokens).toBe(20);
    const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(formatMoney(ws.balance)).toBe(formatMoney(money(1).minus(expectedCost(FAKE_USAGE))));
  });
});
