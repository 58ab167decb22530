// /v1/messages on an `anthropic` node: passed through as the client sent it (prompt-cache
// breakpoints, thinking, metadata, betas), only the model named as the node names it and
// max_tokens capped to the model's limit; answers and streams come back as Anthropic wrote them,
// billed from Anthropic's usage with cache reads and writes priced apart, exactly. The client is
// the official Anthropic SDK; the node a stand-in speaking Anthropic's wire format.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { formatMoney, money } from "../../server/kernel/money";
import { setModelPrice } from "../../server/routing/catalog/set-price";
import { checkAllNodes } from "../../server/routing/nodes/health-check";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { ANTHROPIC_KEY, FIXTURES, model, startAnthropicUpstream, streamEvents, type AnthropicUpstream } from "../fakes/anthropic-upstream";
import { baseUrl, newWorkspace } from "../helpers";

const MODEL = "test-native-claude";
const MAX_OUTPUT = 8192;
let node: AnthropicUpstream;
let nodeId = "";

const client = (apiKey: string) => new Anthropic({ apiKey, baseURL: baseUrl(), maxRetries: 0 });

beforeAll(async () => {
  node = await startAnthropicUpstream([model(MODEL, { max_input_tokens: 200_000, max_tokens: MAX_OUTPUT } as never)]);
    // It outweighs the built-in node, so it is tried first when both serve the model.
  nodeId = (await addNode({ name: "native-anthropic", wire: "anthropic", url: node.url, apiKey: ANTHROPIC_KEY, city: "Dublin", country: "IE", weight: 100 })).node.id;
  await checkAllNodes();
  await notify(db, Channel.nodesChanged);
});

afterAll(async () => {
  await removeNode(nodeId).catch(() => undefined);
  await db.model.deleteMany({ where: { id: MODEL } });
  await node?.close();
});

const CACHED_SYSTEM = [
  { type: "text" as const, text: "You answer from the attached handbook.", cache_control: { type: "ephemeral" as const } },
  { type: "text" as const, text: "Handbook: ".padEnd(4000, "lorem ipsum "), cache_control: { type: "ephemeral" as const, ttl: "1h" as const } },
];

describe("/v1/messages on an anthropic node", () => {
  it("an imported model is not served until an operator prices it (never billed at $0)", async () => {
    const { secret, workspace } = await newWorkspace("1");
    const listed = await db.model.findUniqueOrThrow({ where: { id: MODEL } });
    expect(listed).toMatchObject({ pricingStatus: "unpriced", maxOutputTokens: MAX_OUTPUT, contextLength: 200_000 });
    await expect(client(secret).messages.create({ model: MODEL, max_tokens: 8, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({
      status: 400,
      error: { type: "error", error: { type: "invalid_request_error", message: expect.stringContaining("no price") } },
    });
    expect(node.calls).toBe(0);
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
    await setModelPrice({ model: MODEL, input: "3", output: "15", cacheRead: "0.3", cacheWrite: "3.75" });
  });

  it("passes the request through unchanged (cache_control, thinking, metadata, tools, betas) and bills cache reads and writes exactly", async () => {
    node.fixture = FIXTURES.cached;
    const { secret, workspace } = await newWorkspace("1");
    const request = {
      model: MODEL,
      max_tokens: 2048,
      system: CACHED_SYSTEM,
      thinking: { type: "enabled" as const, budget_tokens: 1024 },
      metadata: { user_id: "user_123" },
      tools: [{ name: "lookup", description: "Look up a page", input_schema: { type: "object" as const, properties: { page: { type: "integer" } } }, cache_control: { type: "ephemeral" as const } }],
      messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "Is the handbook cached?", cache_control: { type: "ephemeral" as const } }] }],
    };
    const { data, response } = await client(secret)
      .messages.create(request, { headers: { "anthropic-beta": "context-management-2025-06-27,extended-cache-ttl-2025-04-11" } })
      .withResponse();
    // What the node received is what the client sent, the node's key and the betas with it.
    expect(node.last!.body).toEqual(request);
    expect(node.last!.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
    expect(node.last!.headers["anthropic-beta"]).toBe("context-management-2025-06-27,extended-cache-ttl-2025-04-11");
    expect(data).toMatchObject({ type: "message", model: MODEL, content: [{ type: "text", text: "From the cached document: yes." }], stop_reason: "end_turn" });
    expect(data.usage).toMatchObject({ input_tokens: 7, cache_creation_input_tokens: 1200, cache_read_input_tokens: 3400, output_tokens: 9 });
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: response.headers.get("request-id") ?? response.headers.get("x-request-id")! } });
    expect(event).toMatchObject({ endpoint: "/v1/messages", nodeId, inputTokens: 4607, cachedTokens: 3400, cacheWriteTokens: 1200, outputTokens: 9, usageEstimated: false });
    // 7 input at 3, 3,400 cache reads at 0.30, 1,200 cache writes at 3.75, 9 output at 15, per 1M tokens.
    expect(formatMoney(event.cost)).toBe("0.005676");
    const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(formatMoney(money(1).minus(ws.balance))).toBe("0.005676");
  });

  it("relays the node's stream event for event (the model renamed), billed once at its end", async () => {
    node.fixture = FIXTURES.thinking;
    const { secret, workspace } = await newWorkspace("1");
    const res = await fetch(`${baseUrl()}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": secret, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, max_tokens: 2048, stream: true, thinking: { type: "enabled", budget_tokens: 1024 }, messages: [{ role: "user", content: "Think, then answer." }] }),
    });
    expect(res.status).toBe(200);
    const frames = (await res.text()).split("\n\n").filter(Boolean);
    const expected = streamEvents(FIXTURES.thinking({ model: MODEL } as never));
    expect(frames).toHaveLength(expected.length);
    frames.forEach((frame, i) => {
      const [eventLine, dataLine] = frame.split("\n");
      expect(eventLine).toBe(`event: ${expected[i]!.type}`);
      expect(JSON.parse(dataLine!.slice(6))).toEqual(expected[i]);
    });
    const message = FIXTURES.thinking({ model: MODEL } as never);
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens });
  });

  it("the SDK's stream helper assembles the relayed stream into the node's message", async () => {
    node.fixture = FIXTURES.parallel;
    const { secret } = await newWorkspace("1");
    const final = await client(secret).messages.stream({ model: MODEL, max_tokens: 512, messages: [{ role: "user", content: "Weather in Paris and Rome?" }] }).finalMessage();
    const expected = FIXTURES.parallel({ model: MODEL } as never);
    expect(final.content).toEqual(expected.content);
    expect(final.stop_reason).toBe("tool_use");
    expect(final.model).toBe(MODEL);
  });

  it("leaves out server tools and MCP servers, which Anthropic bills apart from the tokens the gateway charges", async () => {
    node.fixture = FIXTURES.text;
    const { secret } = await newWorkspace("1");
    const res = await fetch(`${baseUrl()}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": secret, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({
        model: MODEL,
        max_tokens: 64,
        tools: [
          { type: "web_search_20250305", name: "web_search", max_uses: 5 },
          { name: "lookup", input_schema: { type: "object" } },
        ],
        mcp_servers: [{ type: "url", url: "https://mcp.example.com/sse", name: "example" }],
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    expect(res.status).toBe(200);
    expect(node.last!.body.tools).toEqual([{ name: "lookup", input_schema: { type: "object" } }]);
    expect(node.last!.body).not.toHaveProperty("mcp_servers");
  });

  it("caps max_tokens at the model's output limit instead of refusing", async () => {
    node.fixture = FIXTURES.text;
    const { secret } = await newWorkspace("1");
    // (The SDK streams a request that large.)
    await client(secret).messages.stream({ model: MODEL, max_tokens: 64_000, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(node.last!.body.max_tokens).toBe(MAX_OUTPUT);
  });

  it("counts tokens with the node's own count", async () => {
    const { secret } = await newWorkspace("1");
    const messages = [{ role: "user" as const, content: "Count these words, please, all of them." }];
    const counted = await client(secret).messages.countTokens({ model: MODEL, messages });
    expect(counted.input_tokens).toBe(Math.ceil(JSON.stringify(messages).length / 4));
  });

  it("an overloaded node is Anthropic's 529 overloaded_error to the client, and costs nothing", async () => {
    node.mode = "overloaded";
    try {
      const { secret, workspace } = await newWorkspace("1");
      await expect(client(secret).messages.create({ model: MODEL, max_tokens: 8, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({
        status: 529,
        error: { type: "error", error: { type: "overloaded_error" } },
      });
      expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
    } finally {
      node.mode = "ok";
    }
  });

  it("fails over across wire formats: an overloaded anthropic node, then the built-in OpenAI-format node, translated", async () => {
    const local = await db.node.findUniqueOrThrow({ where: { name: "local" } });
    await db.nodeModel.create({ data: { nodeId: local.id, modelId: MODEL, upstreamModel: "local-chat-sim" } });
    await notify(db, Channel.nodesChanged);
    node.mode = "overloaded";
    try {
      const { secret, workspace } = await newWorkspace("1");
      const before = node.calls;
      const message = await client(secret).messages.create({ model: MODEL, max_tokens: 32, messages: [{ role: "user", content: "hello" }] });
      // The anthropic node outweighs the built-in one: it was tried first, then the call went on.
      expect(node.calls).toBe(before + 1);
      expect(message).toMatchObject({ type: "message", model: MODEL, content: [{ type: "text" }] });
      const [event] = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
      expect(event).toMatchObject({ nodeId: local.id, endpoint: "/v1/messages" });
    } finally {
      node.mode = "ok";
      await db.nodeModel.delete({ where: { nodeId_modelId: { nodeId: local.id, modelId: MODEL } } });
      await notify(db, Channel.nodesChanged);
    }
  });

  it("a node's refusal of the request itself reaches the client with its words; a stream that fails midway ends with an error event", async () => {
    const { secret, workspace } = await newWorkspace("1");
    node.mode = "invalid";
    try {
      await expect(client(secret).messages.create({ model: MODEL, max_tokens: 8, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({
        status: 400,
        error: { error: { type: "invalid_request_error", message: expect.stringContaining("text content blocks must be non-empty") } },
      });
      node.mode = "stream-error";
      const stream = client(secret).messages.stream({ model: MODEL, max_tokens: 8, messages: [{ role: "user", content: "hi" }] });
      await expect(stream.finalMessage()).rejects.toThrow();
    } finally {
      node.mode = "ok";
    }
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });
});
