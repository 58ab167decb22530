// The operator's node procedures, the playground's turn cost and the dashboard's video route,
// through the same tRPC callers the dashboard uses. The test model exists only for this file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { formatMoney, money } from "../../server/kernel/money";
import { getRoutableNodes, invalidateNodes } from "../../server/routing/nodes/node-registry";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { newUser, teamWorkspace, userCaller } from "../helpers-dashboard";
import { baseUrl } from "../helpers";
import { chatModelCard } from "../fakes/chat-model-card";

const MODEL = "test-dashboard-nodes-chat";
let fake: FakeUpstream;
let other: FakeUpstream;

const card = chatModelCard(MODEL, { input: "0.37", output: "1.93" });

const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  await db.model.create({ data: cardToRow(card) });
  await notify(db, Channel.catalogChanged);
  fake = await startFakeUpstream(MODEL);
  other = await startFakeUpstream(MODEL);
});

afterAll(async () => {
  await db.node.deleteMany({ where: { baseUrl: { in: [fake.url, other.url] } } });
  await db.model.deleteMany({ where: { id: MODEL } });
  await notify(db, Channel.nodesChanged);
  await fake?.close();
  await other?.close();
});

async function operator() {
  const u = await newUser({ operator: true });
  return userCaller(u.id);
}

describe("nodes (operators only)", () => {
  it("a member who is not an operator is refused listing and adding nodes", async () => {
    const { members } = await teamWorkspace();
    const caller = members.owner!.caller;
    await expect(caller.nodes.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(caller.nodes.create({ name: unique("nope"), url: fake.url, city: "Lisbon", country: "PT" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("an operator adds a node: its models are linked, it is listed with its region and checked at once", async () => {
    const caller = await operator();
    const name = unique("dash");
    const added = await caller.nodes.create({ name, url: fake.url, city: "Lisbon", country: "pt" });
    expect(added.node.models.map((m) => m.model)).toEqual([MODEL]);
    expect(added.node.status).toBe("online");
    const listed = (await caller.nodes.list()).find((n) => n.id === added.node.id);
    expect(listed).toMatchObject({ name, region: { city: "Lisbon", country: "PT" }, enabled: true, hasApiKey: false });
    expect(listed!.lastLatencyMs).not.toBeNull();
    await caller.nodes.remove({ id: added.node.id });
  });

  it("an edit takes effect: rename, disable (out of routing), move to another server; remove deletes it", async () => {
    const caller = await operator();
    const { node } = await caller.nodes.create({ name: unique("edit"), url: fake.url, city: "Oslo", country: "NO" });
    const renamed = unique("renamed");
    const disabled = await caller.nodes.update({ id: node.id, name: renamed, enabled: false, city: "Bergen" });
    expect(disabled).toMatchObject({ name: renamed, enabled: false, region: { city: "Bergen", country: "NO" } });
    const row = await db.node.findUniqueOrThrow({ where: { id: node.id } });
    expect(row).toMatchObject({ name: renamed, enabled: false });
    invalidateNodes();
    expect((await getRoutableNodes()).some((n) => n.id === node.id)).toBe(false);

    const moved = await caller.nodes.update({ id: node.id, url: `${other.url}/`, enabled: true });
    expect(moved.baseUrl).toBe(other.url);
    expect(moved.models.map((m) => m.model)).toEqual([MODEL]);
    expect(moved.status).toBe("online");

    await caller.nodes.remove({ id: node.id });
    expect((await caller.nodes.list()).some((n) => n.id === node.id)).toBe(false);
    await expect(caller.nodes.remove({ id: node.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("an invalid URL, country or a taken name is a BAD_REQUEST", async () => {
    const caller = await operator();
    await expect(caller.nodes.create({ name: unique("bad"), url: "ftp://example.test", city: "Rome", country: "IT" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(caller.nodes.create({ name: unique("bad"), url: "not a url", city: "Rome", country: "IT" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(caller.nodes.create({ name: unique("bad"), url: fake.url, city: "Rome", country: "Italy" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const { node } = await caller.nodes.create({ name: unique("taken"), url: fake.url, city: "Rome", country: "IT" });
    await expect(caller.nodes.create({ name: node.name, url: fake.url, city: "Rome", country: "IT" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(caller.nodes.update({ id: node.id, url: "javascript:alert(1)" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    // A node's stored key is never sent to a new URL unless it is given again.
    const keyed = (await caller.nodes.create({ name: unique("keyed"), url: fake.url, apiKey: "upstream-secret", city: "Rome", country: "IT" })).node;
    await expect(caller.nodes.update({ id: keyed.id, url: `${other.url}/` })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/needs the key again/) });
    await caller.nodes.update({ id: keyed.id, url: `${other.url}/`, apiKey: null });
    await caller.nodes.remove({ id: keyed.id });
    await caller.nodes.remove({ id: node.id });
  });
});

describe("playground", () => {
  let nodeId: string;
  beforeAll(async () => {
    const caller = await operator();
    nodeId = (await caller.nodes.create({ name: unique("play"), url: fake.url, city: "Paris", country: "FR" })).node.id;
  });
  afterAll(async () => {
    await db.node.deleteMany({ where: { id: nodeId } });
  });

  it("a member's streamed chat is billed to the workspace without a key, and turnCost is exactly that charge", async () => {
    const { workspace, members } = await teamWorkspace("5", ["member"]);
    const caller = members.member!.caller;
    const stream = await caller.chat.createCompletion({
      model: MODEL,
      messages: [{ role: "user", content: "hello" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: Parameters<typeof caller.playground.turnCost>[0]["usage"] | undefined;
    let text = "";
    for await (const data of stream as AsyncIterable<string>) {
      const chunk = JSON.parse(data) as { choices: { delta?: { content?: string } }[]; usage?: typeof usage };
      text += chunk.choices[0]?.delta?.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toContain("w0");
    expect(usage).toBeDefined();
    const { cost } = await caller.playground.turnCost({ model: MODEL, usage: usage! });

    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ apiKeyId: null, modelId: MODEL });
    expect(formatMoney(events[0]!.cost.toString())).toBe(cost);
    const expected = money("0.37").times(usage!.prompt_tokens).plus(money("1.93").times(usage!.completion_tokens)).dividedBy(1_000_000);
    expect(cost).toBe(formatMoney(expected));
    const after = await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(formatMoney(after.balance.toString())).toBe(formatMoney(money("5").minus(cost)));
  });

  it("a billing-role member may not chat (FORBIDDEN), and nothing is charged", async () => {
    const { workspace, members } = await teamWorkspace("5", ["billing"]);
    await expect(
      members.billing!.caller.chat.createCompletion({ model: MODEL, messages: [{ role: "user", content: "hello" }] }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });
});

describe("dashboard video route", () => {
  it("refuses a caller without a session in the OpenAI error shape, whatever the workspace", async () => {
    const { workspace } = await teamWorkspace("1", ["owner"]);
    for (const path of [`/api/videos/video_missing/content?workspaceId=${workspace.id}`, `/api/videos/video_missing/content`]) {
      const res = await fetch(`${baseUrl()}${path}`);
      expect([400, 401, 404]).toContain(res.status);
      const body = (await res.json()) as { error: { message: string; type: string; code: string | null } };
      expect(body.error).toMatchObject({ message: expect.any(String), type: expect.any(String) });
    }
    const res = await fetch(`${baseUrl()}/api/videos/video_missing/content?workspaceId=${workspace.id}`);
    expect(res.status).toBe(401);
    expect((await res.json()) as unknown).toMatchObject({ error: { code: "unauthenticated", type: "authentication_error" } });
  });
});
