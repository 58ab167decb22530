// A node that reports no usage (some OpenAI-compatible servers omit it, above all in streams) is
// billed from the gateway's own count of the prompt and the answer, marked as estimated in the
// usage event; an overloaded node is a retryable 503 that fails over, or is answered as
// `503 upstream_overloaded` when no other node serves the model.
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { formatMoney, money } from "../../server/kernel/money";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { checkAllNodes } from "../../server/routing/nodes/health-check";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { chatModelCard } from "../fakes/chat-model-card";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { newWorkspace, raw } from "../helpers";

const SILENT_MODEL = "test-no-usage-chat";
const BUSY_MODEL = "test-overloaded-chat";
const fakes: FakeUpstream[] = [];
const nodeIds: string[] = [];
const tokens = new Tiktoken(o200k);
/** The chat template's tokens: 3 to prime the reply, 3 per message (count-prompt.ts). */
const promptTokens = (...messages: string[]) => 3 + messages.reduce((n, m) => n + 3 + tokens.encode(m).length, 0);
const cost = (input: number, output: number) => formatMoney(money("0.3").times(input).plus(money("1.7").times(output)).dividedBy(1_000_000));

let silent: FakeUpstream;
let busy: FakeUpstream;

beforeAll(async () => {
  await db.model.createMany({ data: [cardToRow(chatModelCard(SILENT_MODEL)), cardToRow(chatModelCard(BUSY_MODEL))] as never });
  silent = await startFakeUpstream(SILENT_MODEL);
  silent.mode = "no-usage";
  busy = await startFakeUpstream(BUSY_MODEL);
  busy.mode = "overloaded";
  fakes.push(silent, busy);
  nodeIds.push((await addNode({ name: "silent-node", url: silent.url, city: "Lyon", country: "FR" })).node.id);
    // The busy node outweighs the built-in one, so it is always tried first.
  nodeIds.push((await addNode({ name: "busy-node", url: busy.url, city: "Lyon", country: "FR", weight: 100 })).node.id);
  await checkAllNodes();
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.nodesChanged);
});

afterAll(async () => {
  for (const id of nodeIds) await removeNode(id).catch(() => undefined);
  await db.model.deleteMany({ where: { id: { in: [SILENT_MODEL, BUSY_MODEL] } } });
  for (const fake of fakes) await fake.close();
});

describe("a node that reports no usage", () => {
  it("a completion is billed from the gateway's count, marked as estimated, and the answer carries that usage", async () => {
    const { openai } = await newWorkspace("1");
    const prompt = "How many tokens is this sentence, counted by the gateway itself?";
    const { data, response } = await openai.chat.completions.create({ model: SILENT_MODEL, messages: [{ role: "user", content: prompt }] }).withResponse();
    const input = promptTokens(prompt);
    const output = tokens.encode("fake answer").length;
    expect(data.usage).toMatchObject({ prompt_tokens: input, completion_tokens: output, total_tokens: input + output });
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: response.headers.get("x-request-id")! } });
    expect(event).toMatchObject({ inputTokens: input, outputTokens: output, usageEstimated: true });
    expect(formatMoney(event.cost)).toBe(cost(input, output));
  });

  it("a stream without a usage chunk is billed for what it streamed, marked as estimated", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const stream = await openai.chat.completions.create({ model: SILENT_MODEL, messages: [{ role: "system", content: "terse" }, { role: "user", content: "count" }], stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe(Array.from({ length: 20 }, (_, i) => `w${i} `).join(""));
    const [event] = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    const input = promptTokens("terse", "count");
    const output = tokens.encode(text).length;
    expect(event).toMatchObject({ inputTokens: input, outputTokens: output, usageEstimated: true });
    expect(formatMoney(event!.cost)).toBe(cost(input, output));
    const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(formatMoney(money(1).minus(ws.balance))).toBe(cost(input, output));
  });

  it("a node that reports usage is not marked as estimated", async () => {
    silent.mode = "ok";
    try {
      const { openai, workspace } = await newWorkspace("1");
      await openai.chat.completions.create({ model: SILENT_MODEL, messages: [{ role: "user", content: "x" }] });
      const [event] = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
      expect(event).toMatchObject({ inputTokens: 11, outputTokens: 20, usageEstimated: false });
    } finally {
      silent.mode = "no-usage";
    }
  });
});

describe("an overloaded node", () => {
  it("answers 503 upstream_overloaded with its Retry-After when no other node serves the model, and costs nothing", async () => {
    const { secret, workspace } = await newWorkspace("1");
    const res = await raw("/v1/chat/completions", { method: "POST", key: secret, headers: { "content-type": "application/json" }, body: JSON.stringify({ model: BUSY_MODEL, messages: [{ role: "user", content: "x" }] }) });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(((await res.json()) as { error: { code: string; type: string } }).error).toMatchObject({ code: "upstream_overloaded", type: "server_error" });
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("fails over to the next node serving the model", async () => {
    const local = await db.node.findUniqueOrThrow({ where: { name: "local" } });
    await db.nodeModel.create({ data: { nodeId: local.id, modelId: BUSY_MODEL, upstreamModel: "local-chat-sim" } });
    await notify(db, Channel.nodesChanged);
    try {
      const { openai, workspace } = await newWorkspace("1");
      const before = busy.calls;
      const completion = await openai.chat.completions.create({ model: BUSY_MODEL, messages: [{ role: "user", content: "x" }] }, { maxRetries: 0 });
      expect(completion.choices[0]!.message.content).toBeTruthy();
      expect(busy.calls).toBe(before + 1);
      const [event] = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
      expect(event!.nodeId).toBe(local.id);
    } finally {
      await db.nodeModel.delete({ where: { nodeId_modelId: { nodeId: local.id, modelId: BUSY_MODEL } } });
      await notify(db, Channel.nodesChanged);
    }
  });
});
