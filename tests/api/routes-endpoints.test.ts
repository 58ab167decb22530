// Routes on every endpoint that calls a model, with the official SDKs: /v1/messages (Anthropic's
// SDK), /v1/responses (the stored response and its single charge under the response's id),
// embeddings, a batch's lines, and a route that prefers the caller's region. Each model here
// exists only for this file.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { checkAllNodes } from "../../server/routing/nodes/health-check";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { setRoute } from "../../server/routing/routes/route-store";
import { createPlan } from "../../server/identity/plans/manage-plans";
import { newKey } from "../plans-fixtures";
import { chatModelCard } from "../fakes/chat-model-card";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { baseUrl, newWorkspace, until } from "../helpers";

const FAILING = "re-model-failing";
const SPARE = "re-model-spare";
const PARIS = "re-model-paris";
const fakes: Record<string, FakeUpstream> = {};
const nodeIds: string[] = [];

beforeAll(async () => {
  for (const id of [FAILING, SPARE, PARIS]) {
    await db.model.create({ data: cardToRow(chatModelCard(id)) });
    fakes[id] = await startFakeUpstream(id);
    nodeIds.push((await addNode({ name: `re-node-${id}`, url: fakes[id]!.url, city: id === PARIS ? "Paris" : "Madrid", country: id === PARIS ? "FR" : "ES" })).node.id);
  }
  fakes[FAILING]!.mode = "fail";
  await checkAllNodes();
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.nodesChanged);
});

afterAll(async () => {
  for (const id of nodeIds) await removeNode(id).catch(() => undefined);
  await db.model.deleteMany({ where: { id: { in: [FAILING, SPARE, PARIS] } } });
  for (const f of Object.values(fakes)) await f.close();
});

/** A workspace with a route `fallback-chat`: the failing model first, then the spare. */
async function routed() {
  const ws = await newWorkspace("5");
  await setRoute(ws.workspace.id, { name: "fallback-chat", strategy: "fallback", targets: [{ model: FAILING }, { model: SPARE }] });
  await until(async () => (await ws.openai.models.list()).data.some((m) => m.id === "fallback-chat"), (ok) => ok, 2000);
  return ws;
}

describe("routes on every endpoint", () => {
  it("/v1/messages with Anthropic's SDK falls back and names the model that answered", async () => {
    const { secret } = await routed();
    const anthropic = new Anthropic({ apiKey: secret, baseURL: baseUrl(), maxRetries: 0 });
    const { data, response } = await anthropic.messages.create({ model: "fallback-chat", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(data.model).toBe(SPARE);
    expect(data.content[0]).toMatchObject({ type: "text", text: "fake answer" });
    expect(response.headers.get("x-gateway-attempts")).toBe("2");
  });

  it("/v1/responses: the stored response and its one charge carry the response's id, at the spare's price", async () => {
    const { openai, workspace } = await routed();
    const response = await openai.responses.create({ model: "fallback-chat", input: "hello" });
    expect(response.model).toBe(SPARE);
    expect((await openai.responses.retrieve(response.id)).id).toBe(response.id);
    const events = await until(() => db.usageEvent.findMany({ where: { workspaceId: workspace.id } }), (e) => e.length >= 1, 5000);
    expect(events.value.map((e) => [e.id, e.modelId])).toEqual([[response.id, SPARE]]);
  });

  it("embeddings through a route to the built-in embedding model", async () => {
    const { openai, workspace } = await newWorkspace("5");
    await setRoute(workspace.id, { name: "embed-default", strategy: "fallback", targets: [{ model: "local-embed-ngram" }] });
    await until(async () => (await openai.models.list()).data.some((m) => m.id === "embed-default"), (ok) => ok, 2000);
    const { data, response } = await openai.embeddings.create({ model: "embed-default", input: ["one", "two"] }).withResponse();
    expect(data.model).toBe("local-embed-ngram");
    expect(data.data).toHaveLength(2);
    expect(response.headers.get("x-gateway-route")).toBe("embed-default");
  });

  it("a batch's lines naming a route fall back like live calls, each billed once at the spare's price", async () => {
    const { openai, workspace } = await routed();
    const lines = [0, 1].map((i) => JSON.stringify({ custom_id: `r${i}`, method: "POST", url: "/v1/chat/completions", body: { model: "fallback-chat", messages: [{ role: "user", content: `line ${i}` }], max_tokens: 8 } }));
    const file = await openai.files.create({ file: await toFile(Buffer.from(lines.join("\n") + "\n"), "routed.jsonl"), purpose: "batch" });
    const batch = await openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    const done = await until(() => openai.batches.retrieve(batch.id), (b) => ["completed", "failed"].includes(b.status), 90_000);
    expect(done.value).toMatchObject({ status: "completed", request_counts: { total: 2, completed: 2, failed: 0 } });
    const output = (await (await openai.files.content(done.value.output_file_id!)).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(output.map((l) => l.response.body.model)).toEqual([SPARE, SPARE]);
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events.map((e) => e.modelId)).toEqual([SPARE, SPARE]);
  }, 120_000);

  it("prefer_region: a caller in France (its header, or its plan's region) goes to the Paris node's model first, others to the first target", async () => {
    const { openai, workspace } = await newWorkspace("5");
    await setRoute(workspace.id, { name: "near", strategy: "fallback", prefer_region: true, targets: [{ model: SPARE }, { model: PARIS }] });
    await until(async () => (await openai.models.list()).data.some((m) => m.id === "near"), (ok) => ok, 2000);
    const ask = (headers: Record<string, string>) => openai.chat.completions.create({ model: "near", messages: [{ role: "user", content: "x" }] }, { headers });
    expect((await ask({ "x-gateway-region": "fr" })).model).toBe(PARIS);
    expect((await ask({ "x-gateway-region": "ES" })).model).toBe(SPARE);
    expect((await ask({})).model).toBe(SPARE);
    // Without the header, the plan's region says where the caller is.
    const plan = await createPlan(workspace.id, { name: "french", region: "fr" });
    expect(plan.region).toBe("FR");
    const onPlan = await newKey(workspace.id, plan.id);
    const french = new OpenAI({ apiKey: onPlan.secret, baseURL: `${baseUrl()}/v1`, maxRetries: 0 });
    expect((await french.chat.completions.create({ model: "near", messages: [{ role: "user", content: "x" }] })).model).toBe(PARIS);
    await expect(createPlan(workspace.id, { name: "nowhere", region: "France" })).rejects.toMatchObject({ issues: [expect.objectContaining({ path: ["region"] })] });
  });
});

describe("a restricted key and routes", () => {
  it("a key limited to some models may call a route only when its list names the route", async () => {
    const { workspace, openai } = await routed();
    const { createKey } = await import("../../server/identity/keys/create-key");
    const onlyModel = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "spare only", models: [SPARE] }));
    const client = new OpenAI({ apiKey: onlyModel.secret, baseURL: `${baseUrl()}/v1`, maxRetries: 0 });
    await expect(client.chat.completions.create({ model: "fallback-chat", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 403 });
    const withRoute = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "route", models: ["fallback-chat"] }));
    const allowed = new OpenAI({ apiKey: withRoute.secret, baseURL: `${baseUrl()}/v1`, maxRetries: 0 });
    expect((await allowed.chat.completions.create({ model: "fallback-chat", messages: [{ role: "user", content: "x" }] })).model).toBe(SPARE);
    expect((await openai.models.list()).data.some((m) => m.id === "fallback-chat")).toBe(true);
  });
});
