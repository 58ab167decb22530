// An `anthropic` node behind the gateway, called with the official OpenAI client: its listed
// models are imported unpriced (refused until priced), then chat (plain, streamed, tools, parallel
// calls, images, json_schema, stops, max_tokens, system, reasoning) and the responses API are
// served in Anthropic's wire format; what the node received is checked to the field, the usage
// event bills cache reads and writes at their prices, and an overloaded node fails over or
// answers 503. The models and nodes here exist only for this file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import { db } from "../../server/infra/db/client";
import { formatMoney, money } from "../../server/kernel/money";
import { setModelPrice } from "../../server/routing/catalog/set-price";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { ANTHROPIC_KEY, ANTHROPIC_VERSION, FIXTURES, SIGNATURE, model, startAnthropicUpstream, type AnthropicUpstream } from "../fakes/anthropic-upstream";
import { newWorkspace, until } from "../helpers";
import { PNG, refreshRouting, refusedUntilPriced } from "../helpers-nodes";

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MODEL = "claude-wire-test-sonnet";
const MODELS = [MODEL, "claude-wire-test-haiku", "claude-wire-test-opus"];
const MAX_OUTPUT = 8192;
const PRICES = { input: "3", output: "15", cacheRead: "0.3", cacheWrite: "3.75" };

let node: AnthropicUpstream;
let spare: AnthropicUpstream | undefined;
const nodeIds: string[] = [];
let openai: OpenAI;

const refresh = refreshRouting;

const ask = (extra: Record<string, unknown> = {}) => openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hello" }], ...extra } as never) as unknown as Promise<Any>;

/** What the node was sent, less the fields every call has. */
const sent = () => node.last!.body as Any;

/** The cost of a usage at PRICES, per million tokens, as the ledger computes it. */
function costOf(u: { input: number; cacheRead: number; cacheWrite: number; output: number }): string {
  return formatMoney(
    money(PRICES.input)
      .times(u.input)
      .plus(money(PRICES.cacheRead).times(u.cacheRead))
      .plus(money(PRICES.cacheWrite).times(u.cacheWrite))
      .plus(money(PRICES.output).times(u.output))
      .dividedBy(1_000_000),
  );
}

beforeAll(async () => {
  // Three models at two per page: the list is only complete when its pages are followed.
  node = await startAnthropicUpstream([model(MODEL, { max_tokens: MAX_OUTPUT, max_input_tokens: 200_000 }), model(MODELS[1]!), model(MODELS[2]!)], 2);
  const added = await addNode({ name: "anthropic-wire-main", url: node.url, wire: "anthropic", apiKey: ANTHROPIC_KEY, city: "Dublin", country: "IE" });
  nodeIds.push(added.node.id);
  expect(added.importedModels.sort()).toEqual([...MODELS].sort());
  await refresh();
  ({ openai } = await newWorkspace("10"));
}, 120_000);

afterAll(async () => {
  for (const id of nodeIds) await removeNode(id).catch(() => undefined);
  await db.model.deleteMany({ where: { id: { in: MODELS } } });
  await node?.close();
  await spare?.close();
});

describe("an anthropic node", () => {
  it("its models are imported unpriced and refused (400 model_not_priced) until an operator prices them", async () => {
    const row = await db.model.findUniqueOrThrow({ where: { id: MODEL } });
    expect(row).toMatchObject({ pricingStatus: "unpriced", maxOutputTokens: MAX_OUTPUT, contextLength: 200_000 });
    await refusedUntilPriced(ask, async () => {
      await setModelPrice({ model: MODEL, ...PRICES });
    }, () => node.calls);
  });

  it("a plain chat: the Messages request the node gets, with its key and version; the answer as a chat.completion", async () => {
    node.fixture = FIXTURES.text;
    const c = await ask();
    expect(node.last!.path).toBe("/v1/messages");
    expect(node.last!.headers).toMatchObject({ "x-api-key": ANTHROPIC_KEY, "anthropic-version": ANTHROPIC_VERSION, "content-type": "application/json" });
    expect(node.last!.headers.authorization).toBeUndefined();
    expect(sent()).toEqual({ model: MODEL, max_tokens: MAX_OUTPUT, messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }] });
    expect(c).toMatchObject({
      object: "chat.completion",
      model: MODEL,
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hello! How can I help you today?" } }],
      usage: { prompt_tokens: 21, completion_tokens: 12, total_tokens: 33, prompt_tokens_details: { cached_tokens: 0 } },
    });
    expect(c.id).toMatch(/^chatcmpl-/);
  });

  it("a system message, stop sequences, max_tokens, temperature and user", async () => {
    node.fixture = FIXTURES.stopSequence;
    const c = await openai.chat.completions.create({
      model: MODEL,
      messages: [
        { role: "system", content: "Count." },
        { role: "user", content: "count to five" },
      ],
      stop: ["four", "five"],
      max_tokens: 40,
      temperature: 0.5,
      user: "end-user-7",
    });
    expect(sent()).toEqual({
      model: MODEL,
      max_tokens: 40,
      system: [{ type: "text", text: "Count." }],
      messages: [{ role: "user", content: [{ type: "text", text: "count to five" }] }],
      stop_sequences: ["four", "five"],
      temperature: 0.5,
      metadata: { user_id: "end-user-7" },
    });
    expect(c.choices[0]!.finish_reason).toBe("stop");
    node.fixture = FIXTURES.maxTokens;
    const cut = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "go on" }], max_completion_tokens: 5 });
    expect(sent().max_tokens).toBe(5);
    expect(cut.choices[0]!.finish_reason).toBe("length");
    expect(cut.usage!.completion_tokens).toBe(5);
  });

  it("a streamed chat with include_usage: text deltas, the finish reason, then the usage chunk", async () => {
    node.fixture = FIXTURES.text;
    const stream = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hello" }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let finish: string | null = null;
    let usage: Any | undefined;
    for await (const chunk of stream) {
      expect(chunk.model).toBe(MODEL);
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(sent()).toEqual({ model: MODEL, max_tokens: MAX_OUTPUT, messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }], stream: true });
    expect(text).toBe("Hello! How can I help you today?");
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 12, total_tokens: 33 });
  });

  it("tools: a call out (id and arguments kept), then the tool's result in the next turn", async () => {
    node.fixture = FIXTURES.tool;
    const tools = [{ type: "function" as const, function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { location: { type: "string" }, unit: { type: "string" } } } } }];
    const messages: Any[] = [{ role: "user", content: "Weather in SF?" }];
    const first = await openai.chat.completions.create({ model: MODEL, messages: messages as never, tools, tool_choice: "auto" });
    expect(sent()).toMatchObject({
      tools: [{ name: "get_weather", description: "Weather", input_schema: tools[0]!.function.parameters }],
      tool_choice: { type: "auto" },
    });
    const answer = first.choices[0]!;
    expect(answer.finish_reason).toBe("tool_calls");
    expect(answer.message.content).toBe("Let me check the weather.");
    expect(answer.message.tool_calls).toEqual([{ id: "toolu_01A09q90qw90lq917835lq9", type: "function", function: { name: "get_weather", arguments: '{"location":"San Francisco, CA","unit":"celsius"}' } }]);
    node.fixture = FIXTURES.text;
    messages.push(answer.message, { role: "tool", tool_call_id: "toolu_01A09q90qw90lq917835lq9", content: "15 degrees" });
    await openai.chat.completions.create({ model: MODEL, messages: messages as never, tools });
    expect(sent().messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in SF?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check the weather." },
          { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { location: "San Francisco, CA", unit: "celsius" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01A09q90qw90lq917835lq9", content: "15 degrees" }] },
    ]);
  });

  it("parallel tool calls, plain and streamed (indexes 0 and 1, arguments put together from pieces); parallel_tool_calls: false", async () => {
    node.fixture = FIXTURES.parallel;
    const tools = ["get_weather", "get_time"].map((name) => ({ type: "function" as const, function: { name, parameters: { type: "object" } } }));
    const expected = [
      { id: "toolu_01Pa1", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } },
      { id: "toolu_01Pa2", type: "function", function: { name: "get_time", arguments: '{"timezone":"Europe/Paris","format":{"hours":24}}' } },
    ];
    const plain = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Paris?" }], tools });
    expect(plain.choices[0]!.message.tool_calls).toEqual(expected);
    const stream = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Paris?" }], tools, stream: true, parallel_tool_calls: false });
    expect(sent().tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    const calls: Any[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      finish = chunk.choices[0]?.finish_reason ?? finish;
      for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
        const at = (calls[d.index] ??= { id: d.id, type: d.type, function: { name: d.function?.name, arguments: "" } });
        at.function.arguments += d.function?.arguments ?? "";
      }
    }
    expect(calls).toEqual(expected);
    expect(finish).toBe("tool_calls");
  });

  it("an image input (a data: URL as base64, an https URL as a URL source)", async () => {
    node.fixture = FIXTURES.text;
    await openai.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Describe" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
          ],
        },
      ],
    });
    expect(sent().messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Describe" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
          { type: "image", source: { type: "url", url: "https://example.com/a.jpg" } },
        ],
      },
    ]);
  });

  it("json_schema as Anthropic's structured output (output_config.format)", async () => {
    node.fixture = FIXTURES.json;
    const schema = { type: "object", properties: { name: { type: "string" }, age: { type: "integer" } }, required: ["name", "age"], additionalProperties: false };
    const c = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Ada, 36" }], response_format: { type: "json_schema", json_schema: { name: "person", schema, strict: true } } });
    expect(sent().output_config).toEqual({ format: { type: "json_schema", schema } });
    expect(JSON.parse(c.choices[0]!.message.content!)).toEqual({ name: "Ada", age: 36 });
  });

  it("reasoning: reasoning_effort as a thinking budget; thinking as reasoning_content, its signed block sent back on the next turn", async () => {
    node.fixture = FIXTURES.thinking;
    const c = (await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "2+2?" }], reasoning_effort: "low" })) as Any;
    expect(sent().thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    const message = c.choices[0].message;
    expect(message.reasoning_content).toBe("The user asks for 2+2. That is 4.");
    expect(message.thinking_blocks).toEqual([{ type: "thinking", thinking: "The user asks for 2+2. That is 4.", signature: SIGNATURE }]);
    expect(c.usage).toMatchObject({ completion_tokens: 95, completion_tokens_details: { reasoning_tokens: 80 } });
    node.fixture = FIXTURES.text;
    await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "2+2?" }, message, { role: "user", content: "thanks" }] });
    expect(sent().messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "The user asks for 2+2. That is 4.", signature: SIGNATURE },
        { type: "text", text: "2 + 2 = 4." },
      ],
    });
  });

  it("bills exactly: cache reads at cache_read_per_1m, cache writes at cache_write_per_1m (plain and streamed)", async () => {
    node.fixture = FIXTURES.cached;
    const usage = { input: 7, cacheRead: 3400, cacheWrite: 1200, output: 9 };
    const { data, response } = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "from the doc?" }] }).withResponse();
    expect(data.usage).toMatchObject({ prompt_tokens: 4607, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 3400, cache_write_tokens: 1200 } });
    const plain = await db.usageEvent.findUniqueOrThrow({ where: { id: response.headers.get("x-request-id")! } });
    expect(plain).toMatchObject({ modelId: MODEL, inputTokens: 4607, cachedTokens: 3400, cacheWriteTokens: 1200, outputTokens: 9, usageEstimated: false });
    expect(formatMoney(plain.cost)).toBe(costOf(usage));
    expect(costOf(usage)).toBe("0.005676");

    const streamed = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "from the doc?" }], stream: true }).withResponse();
    for await (const _ of streamed.data);
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: streamed.response.headers.get("x-request-id")! } });
    expect(event).toMatchObject({ inputTokens: 4607, cachedTokens: 3400, cacheWriteTokens: 1200, outputTokens: 9, usageEstimated: false });
    expect(formatMoney(event.cost)).toBe(costOf(usage));
  });

  it("the responses API on the node, plain and streamed", async () => {
    node.fixture = FIXTURES.text;
    const r = await openai.responses.create({ model: MODEL, input: "hello", instructions: "Be kind", max_output_tokens: 300 });
    expect(sent()).toEqual({ model: MODEL, max_tokens: 300, system: [{ type: "text", text: "Be kind" }], messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }] });
    expect(r.status).toBe("completed");
    expect(r.output_text).toBe("Hello! How can I help you today?");
    expect(r.usage).toMatchObject({ input_tokens: 21, output_tokens: 12, total_tokens: 33 });

    const stream = await openai.responses.create({ model: MODEL, input: "hello", stream: true });
    let text = "";
    let completed: Any | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    expect(sent().stream).toBe(true);
    expect(text).toBe("Hello! How can I help you today?");
    expect(completed!.status).toBe("completed");
    expect(completed!.usage).toMatchObject({ input_tokens: 21, output_tokens: 12 });
  });

  it("the node's 400 reaches the client with its message; an error event mid-stream fails the stream", async () => {
    node.mode = "invalid";
    const refused = await ask().catch((e: Any) => e);
    expect(refused).toMatchObject({ status: 400, message: expect.stringContaining("text content blocks must be non-empty") });
    node.mode = "stream-error";
    const stream = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hello" }], stream: true });
    const failed = (await (async () => {
      for await (const _ of stream);
    })().catch((e: Any) => e)) as Any;
    expect(failed).toBeInstanceOf(Error);
    expect(String(failed.message)).toContain("Overloaded");
    node.mode = "ok";
  });

  it("a 529 (overloaded) fails over to another node; with every node overloaded the call answers 503 upstream_overloaded", async () => {
    spare = await startAnthropicUpstream([model(MODEL, { max_tokens: MAX_OUTPUT, max_input_tokens: 200_000 })]);
    spare.mode = "overloaded";
    // The spare weighs more, so it is tried first once the gateway knows it.
    nodeIds.push((await addNode({ name: "anthropic-wire-spare", url: spare.url, wire: "anthropic", apiKey: ANTHROPIC_KEY, city: "Dublin", country: "IE", weight: 100 })).node.id);
    await refresh();
    node.fixture = FIXTURES.text;
    const before = node.calls;
    const tried = await until(
      async () => (await ask(), spare!.calls),
      (n) => n > 0,
      10_000,
    );
    expect(tried.value).toBeGreaterThan(0);
    expect(node.calls).toBeGreaterThan(before);
    node.mode = "overloaded";
    const failed = await ask().catch((e: Any) => e);
    expect(failed).toMatchObject({ status: 503, code: "upstream_overloaded" });
    node.mode = "ok";
  });
});
