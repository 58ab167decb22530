// A `bedrock` node behind the gateway (the signed stand-in, tests/fakes/bedrock-upstream.ts),
// called with the official OpenAI and Anthropic clients: its listed models and inference
// profiles are imported unpriced (refused until priced), then chat (plain, streamed, tools and
// parallel calls, images and documents, json_schema, stops, reasoning with its signature) and the
// responses API over Converse, Claude over InvokeModel (chat, and /v1/messages passed through with
// cache_control, thinking and tool_use intact), Titan embeddings; usage (cache reads and writes,
// reasoning) bills exactly; a wrong secret, throttling, an exception mid-stream and a context
// overflow answer as the gateway's errors. The models and nodes here exist only for this file.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { seal } from "../../server/infra/secret-box";
import { formatMoney, money } from "../../server/kernel/money";
import { setModelPrice } from "../../server/routing/catalog/set-price";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { FIXTURES, message, SIGNATURE as CLAUDE_SIGNATURE } from "../fakes/anthropic-upstream";
import { CONVERSE, KEYS, REASONING, REGION, SIGNATURE, startBedrockUpstream, type BedrockUpstream } from "../fakes/bedrock-upstream";
import { fakeVector } from "../fakes/gemini-upstream";
import { runClaudeCode } from "../claude-code";
import { baseUrl, newWorkspace } from "../helpers";
import { PNG, refreshRouting, refusedUntilPriced } from "../helpers-nodes";

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NOVA = "amazon.nova-wiretest-v1:0";
const CLAUDE = "us.anthropic.claude-wiretest-v1:0";
const TITAN = "amazon.titan-embed-text-v2:0";
const IDS = [NOVA, CLAUDE, TITAN, "us.amazon.nova-wiretest-v1:0"];
const PRICES = { input: "3", output: "15", cacheRead: "0.3", cacheWrite: "3.75", reasoning: "20" };
const TITAN_PRICES = { input: "0.02", output: "0" };

let node: BedrockUpstream;
let nodeId: string;
let openai: OpenAI;
let workspaceSecret: string;

const ask = (extra: Record<string, unknown> = {}) => openai.chat.completions.create({ model: NOVA, messages: [{ role: "user", content: "hello" }], ...extra } as never) as unknown as Promise<Any>;
const sent = () => node.last!.body as Any;
const user = (text: string) => ({ role: "user", content: [{ text }] });
const eventOf = (requestId: string) => db.usageEvent.findUniqueOrThrow({ where: { id: requestId } });

/** The cost at PRICES per million tokens, as the ledger computes it (input counts every prompt token). */
function costOf(u: { input: number; cacheRead?: number; cacheWrite?: number; output: number; reasoning?: number }): string {
  const [read, write, reasoning] = [u.cacheRead ?? 0, u.cacheWrite ?? 0, u.reasoning ?? 0];
  return formatMoney(
    money(PRICES.input)
      .times(u.input - read - write)
      .plus(money(PRICES.cacheRead).times(read))
      .plus(money(PRICES.cacheWrite).times(write))
      .plus(money(PRICES.output).times(u.output - reasoning))
      .plus(money(PRICES.reasoning).times(reasoning))
      .dividedBy(1_000_000),
  );
}

/** A stream's text, finish reason, usage and tool calls (their arguments put together). */
async function drain(stream: AsyncIterable<Any>) {
  let text = "";
  let finish: string | null = null;
  let usage: Any | undefined;
  const calls: Any[] = [];
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? "";
    finish = chunk.choices[0]?.finish_reason ?? finish;
    if (chunk.usage) usage = chunk.usage;
    for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
      const at = (calls[d.index] ??= { id: d.id, type: d.type, function: { name: d.function?.name, arguments: "" } });
      at.function.arguments += d.function?.arguments ?? "";
    }
  }
  return { text, finish, usage, calls };
}

beforeAll(async () => {
  node = await startBedrockUpstream();
  const added = await addNode({ name: "bedrock-wire-main", wire: "bedrock", url: node.url, cloud: { region: REGION }, credentials: KEYS, city: "Ashburn", country: "US" });
  nodeId = added.node.id;
  expect(added.importedModels.sort()).toEqual([...IDS].sort());
  await refreshRouting();
  ({ openai, secret: workspaceSecret } = await newWorkspace("10"));
}, 120_000);

afterAll(async () => {
  if (nodeId) await removeNode(nodeId).catch(() => undefined);
  await db.model.deleteMany({ where: { id: { in: IDS } } });
  await node?.close();
});

describe("a bedrock node", () => {
  it("its models and inference profiles are imported unpriced (chat and embedding apart), refused until priced", async () => {
    const rows = await db.model.findMany({ where: { id: { in: IDS } }, orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.id, r.type, r.pricingStatus])).toEqual([
      [NOVA, "chat", "unpriced"],
      [TITAN, "embedding", "unpriced"],
      ["us.amazon.nova-wiretest-v1:0", "chat", "unpriced"],
      [CLAUDE, "chat", "unpriced"],
    ]);
    // Listing is signed too: the stand-in refuses any call whose signature is wrong.
    expect(node.calls).toBe(0);
    await refusedUntilPriced(ask, async () => {
      for (const model of [NOVA, CLAUDE]) await setModelPrice({ model, ...PRICES });
      await setModelPrice({ model: TITAN, ...TITAN_PRICES });
    }, () => node.calls);
  });

  it("a plain chat: Converse, signed with SigV4 (no key sent); the answer and its usage billed exactly", async () => {
    node.converse = CONVERSE.text;
    const { data: c, response } = await openai.chat.completions.create({ model: NOVA, messages: [{ role: "user", content: "hello" }] }).withResponse();
    expect(node.last!.path).toBe("/model/amazon.nova-wiretest-v1%3A0/converse");
    expect(node.last!.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${KEYS.access_key_id}/\\d{8}/${REGION}/bedrock/aws4_request, SignedHeaders=`));
    expect(node.last!.headers["x-amz-date"]).toMatch(/^\d{8}T\d{6}Z$/);
    expect(sent()).toEqual({ messages: [user("hello")] });
    expect(c).toMatchObject({
      object: "chat.completion",
      model: NOVA,
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hello from Bedrock, how can I help?" } }],
      usage: { prompt_tokens: 25, completion_tokens: 11, total_tokens: 36 },
    });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ modelId: NOVA, inputTokens: 25, outputTokens: 11, usageEstimated: false });
    expect(formatMoney(event.cost)).toBe(costOf({ input: 25, output: 11 }));
  });

  it("system, stop sequences, max_tokens, temperature, top_p; stop_sequence is stop, max_tokens is length", async () => {
    node.converse = CONVERSE.stop;
    const c = await openai.chat.completions.create({
      model: NOVA,
      messages: [
        { role: "system", content: "Count." },
        { role: "developer", content: "Digits only." },
        { role: "user", content: "count" },
      ],
      stop: ["four"],
      max_tokens: 40,
      temperature: 0.5,
      top_p: 0.9,
      seed: 3,
    });
    expect(sent()).toEqual({ system: [{ text: "Count." }, { text: "Digits only." }], messages: [user("count")], inferenceConfig: { maxTokens: 40, temperature: 0.5, topP: 0.9, stopSequences: ["four"] } });
    expect(c.choices[0]!.finish_reason).toBe("stop");
    node.converse = CONVERSE.maxTokens;
    const cut = await ask({ max_completion_tokens: 5 });
    expect(sent().inferenceConfig).toEqual({ maxTokens: 5 });
    expect(cut.choices[0].finish_reason).toBe("length");
  });

  it("a streamed chat (ConverseStream's event stream) says what the plain one says, with the usage chunk, billed", async () => {
    node.converse = CONVERSE.text;
    const whole = await ask();
    const { data: stream, response } = await openai.chat.completions.create({ model: NOVA, messages: [{ role: "user", content: "hello" }], stream: true, stream_options: { include_usage: true } }).withResponse();
    const streamed = await drain(stream as AsyncIterable<Any>);
    expect(node.last!.path).toBe("/model/amazon.nova-wiretest-v1%3A0/converse-stream");
    expect(node.last!.headers.accept).toBe("application/vnd.amazon.eventstream");
    expect(streamed.text).toBe(whole.choices[0].message.content);
    expect(streamed.finish).toBe(whole.choices[0].finish_reason);
    const { prompt_tokens, completion_tokens, total_tokens } = whole.usage;
    expect(streamed.usage).toMatchObject({ prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details: { cached_tokens: 0 } });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ inputTokens: 25, outputTokens: 11, usageEstimated: false });
  });

  it("tools: toolSpec and toolChoice out, a call back (id and arguments kept), its result sent as a toolResult", async () => {
    node.converse = CONVERSE.tool;
    const tools = [{ type: "function" as const, function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    const messages: Any[] = [{ role: "user", content: "Weather in Paris?" }];
    const first = await openai.chat.completions.create({ model: NOVA, messages: messages as never, tools, tool_choice: "required" });
    expect(sent().toolConfig).toEqual({ tools: [{ toolSpec: { name: "get_weather", description: "Weather", inputSchema: { json: tools[0]!.function.parameters } } }], toolChoice: { any: {} } });
    const answer = first.choices[0]!;
    expect(answer.finish_reason).toBe("tool_calls");
    expect(answer.message.content).toBe("Let me check.");
    expect(answer.message.tool_calls).toEqual([{ id: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' } }]);
    node.converse = CONVERSE.text;
    messages.push(answer.message, { role: "tool", tool_call_id: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", content: "24C and sunny" });
    await openai.chat.completions.create({ model: NOVA, messages: messages as never, tools });
    expect(sent().messages).toEqual([
      user("Weather in Paris?"),
      { role: "assistant", content: [{ text: "Let me check." }, { toolUse: { toolUseId: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name: "get_weather", input: { city: "Paris", unit: "celsius" } } }] },
      { role: "user", content: [{ toolResult: { toolUseId: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", content: [{ text: "24C and sunny" }] } }] },
    ]);
  });

  it("two parallel tool calls, plain and streamed (input streamed as JSON pieces), the same", async () => {
    node.converse = CONVERSE.parallel;
    const tools = ["get_weather", "get_time"].map((name) => ({ type: "function" as const, function: { name, parameters: { type: "object" } } }));
    const expected = [
      { id: "tooluse_Pa1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      { id: "tooluse_Pa2", type: "function", function: { name: "get_time", arguments: '{"timezone":"Europe/Paris","format":{"hours":24}}' } },
    ];
    const plain = await openai.chat.completions.create({ model: NOVA, messages: [{ role: "user", content: "Paris?" }], tools });
    expect(plain.choices[0]!.message.tool_calls).toEqual(expected);
    const streamed = await drain((await openai.chat.completions.create({ model: NOVA, messages: [{ role: "user", content: "Paris?" }], tools, stream: true })) as AsyncIterable<Any>);
    expect(streamed.calls).toEqual(expected);
    expect(streamed.finish).toBe("tool_calls");
  });

  it("images and documents: a data: URL as image bytes, a PDF file as a document block, cache_control as a cache point", async () => {
    node.converse = CONVERSE.text;
    const pdf = Buffer.from("%PDF-1.4 test").toString("base64");
    await openai.chat.completions.create({
      model: NOVA,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Describe both", cache_control: { type: "ephemeral" } },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: "file", file: { filename: "report_2025.pdf", file_data: `data:application/pdf;base64,${pdf}` } },
          ],
        },
      ] as never,
    });
    expect(sent().messages).toEqual([
      {
        role: "user",
        content: [{ text: "Describe both" }, { cachePoint: { type: "default" } }, { image: { format: "png", source: { bytes: PNG } } }, { document: { format: "pdf", name: "report 2025", source: { bytes: pdf } } }],
      },
    ]);
    const refused = await ask({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }] }).catch((e: Any) => e);
    expect(refused).toMatchObject({ status: 400, code: "unsupported_parameter" });
  });

  it("json_schema through a tool the model must call; its input is the answer", async () => {
    node.converse = CONVERSE.json;
    const schema = { type: "object", properties: { city: { type: "string" }, temp: { type: "number" } }, required: ["city", "temp"] };
    const c = await ask({ response_format: { type: "json_schema", json_schema: { name: "weather", schema } } });
    expect(sent().toolConfig).toEqual({ tools: [{ toolSpec: { name: "json_response", description: "Give your answer as the input of this tool.", inputSchema: { json: schema } } }], toolChoice: { tool: { name: "json_response" } } });
    expect(c.choices[0].finish_reason).toBe("stop");
    expect(JSON.parse(c.choices[0].message.content)).toEqual({ city: "Paris", temp: 21 });
  });

  it("reasoning: reasoningContent as reasoning_content, its signed block sent back next turn; streamed the same", async () => {
    node.converse = CONVERSE.reasoning;
    const c = await ask({ reasoning_effort: "low" });
    expect(sent().additionalModelRequestFields).toEqual({ reasoningConfig: { type: "enabled", maxReasoningEffort: "low" } });
    const message = c.choices[0].message;
    expect(message).toMatchObject({ content: "Hello!", reasoning_content: REASONING, thinking_blocks: [{ type: "thinking", thinking: REASONING, signature: SIGNATURE }] });
    await ask({ messages: [{ role: "user", content: "hi" }, message, { role: "user", content: "thanks" }] });
    expect(sent().messages[1]).toEqual({ role: "assistant", content: [{ reasoningContent: { reasoningText: { text: REASONING, signature: SIGNATURE } } }, { text: "Hello!" }] });
    const stream = (await openai.chat.completions.create({ model: NOVA, messages: [{ role: "user", content: "hi" }], stream: true })) as AsyncIterable<Any>;
    let reasoning = "";
    const blocks: Any[] = [];
    for await (const chunk of stream) {
      reasoning += chunk.choices[0]?.delta.reasoning_content ?? "";
      blocks.push(...(chunk.choices[0]?.delta.thinking_blocks ?? []));
    }
    expect(reasoning).toBe(REASONING);
    expect(blocks).toEqual([{ type: "thinking", thinking: REASONING, signature: SIGNATURE }]);
  });

  it("cache reads and writes (Converse's cacheRead/WriteInputTokens) bill at their prices, plain and streamed", async () => {
    node.converse = CONVERSE.cached;
    const tokens = { input: 4607, cacheRead: 3400, cacheWrite: 1200, output: 9 };
    const { data, response } = await openai.chat.completions.create({ model: NOVA, messages: [{ role: "user", content: "doc?" }] }).withResponse();
    expect(data.usage).toMatchObject({ prompt_tokens: 4607, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 3400, cache_write_tokens: 1200 } });
    const plain = await eventOf(response.headers.get("x-request-id")!);
    expect(plain).toMatchObject({ inputTokens: 4607, cachedTokens: 3400, cacheWriteTokens: 1200, outputTokens: 9, usageEstimated: false });
    expect(formatMoney(plain.cost)).toBe(costOf(tokens));
    const streamed = await openai.chat.completions.create({ model: NOVA, messages: [{ role: "user", content: "doc?" }], stream: true }).withResponse();
    for await (const _ of streamed.data);
    const event = await eventOf(streamed.response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ inputTokens: 4607, cachedTokens: 3400, cacheWriteTokens: 1200, outputTokens: 9 });
    expect(formatMoney(event.cost)).toBe(costOf(tokens));
  });

  it("Claude (an inference profile) chats over InvokeModel: Anthropic's body, thinking as reasoning, reasoning tokens billed at their price", async () => {
    node.claude = FIXTURES.thinking;
    const { data, response } = await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: "user", content: "2+2?" }], reasoning_effort: "low", max_tokens: 4000, user: "u-1" }).withResponse();
    const c = data as Any;
    expect(node.last!.path).toBe("/model/us.anthropic.claude-wiretest-v1%3A0/invoke");
    expect(sent()).toEqual({ anthropic_version: "bedrock-2023-05-31", max_tokens: 4000, messages: [{ role: "user", content: [{ type: "text", text: "2+2?" }] }], thinking: { type: "enabled", budget_tokens: 2048 } });
    expect(c.choices[0].message).toMatchObject({ content: "2 + 2 = 4.", thinking_blocks: [{ type: "thinking", signature: CLAUDE_SIGNATURE }] });
    expect(c.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 95, completion_tokens_details: { reasoning_tokens: 80 } });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ inputTokens: 30, outputTokens: 95, reasoningTokens: 80 });
    expect(formatMoney(event.cost)).toBe(costOf({ input: 30, output: 95, reasoning: 80 }));
    node.claude = FIXTURES.text;
    const streamed = await drain((await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: "user", content: "hi" }], stream: true })) as AsyncIterable<Any>);
    expect(node.last!.path).toBe("/model/us.anthropic.claude-wiretest-v1%3A0/invoke-with-response-stream");
    expect(streamed).toMatchObject({ text: "Hello! How can I help you today?", finish: "stop" });
  });

  it("the responses API on the node, plain and streamed", async () => {
    node.converse = CONVERSE.text;
    const r = await openai.responses.create({ model: NOVA, input: "hello", instructions: "Be kind", max_output_tokens: 300 });
    expect(sent()).toEqual({ system: [{ text: "Be kind" }], messages: [user("hello")], inferenceConfig: { maxTokens: 300 } });
    expect(r.output_text).toBe("Hello from Bedrock, how can I help?");
    expect(r.usage).toMatchObject({ input_tokens: 25, output_tokens: 11 });
    const stream = await openai.responses.create({ model: NOVA, input: "hello", stream: true });
    let text = "";
    let completed: Any | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    expect(text).toBe("Hello from Bedrock, how can I help?");
    expect(completed!.status).toBe("completed");
  });

  it("embeddings on Titan (one InvokeModel a text, dimensions), billed from Titan's own token count", async () => {
    const inputs = ["The quick brown fox", "jumps"];
    const { data, response } = await openai.embeddings.create({ model: TITAN, input: inputs, dimensions: 4, encoding_format: "float" }).withResponse();
    expect(node.requests.slice(-2).map((r) => [r.path, r.body])).toEqual(inputs.map((inputText) => ["/model/amazon.titan-embed-text-v2%3A0/invoke", { inputText, dimensions: 4 }]));
    expect(data.data.map((d) => d.embedding)).toEqual(inputs.map((t) => fakeVector(t, 4)));
    expect(data.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
    const event = await eventOf(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ modelId: TITAN, inputTokens: 5, usageEstimated: false });
  });

  it("/v1/messages on Claude passes through InvokeModel: cache_control, thinking and tool_use arrive intact, plain and streamed", async () => {
    const anthropic = new Anthropic({ apiKey: workspaceSecret, baseURL: baseUrl(), maxRetries: 0 });
    const tools = [{ name: "get_weather", description: "Weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } }, cache_control: { type: "ephemeral" as const } }];
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: [{ type: "text", text: "A long document...", cache_control: { type: "ephemeral" } }, { type: "text", text: "Weather in Paris?" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "I should call the tool.", signature: CLAUDE_SIGNATURE },
          { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "24C" }] },
    ];
    node.claude = FIXTURES.cached;
    const request = { model: CLAUDE, max_tokens: 3000, system: "Be brief.", tools, messages, thinking: { type: "enabled" as const, budget_tokens: 1024 } };
    const message = await anthropic.messages.create(request);
    const { model: _model, ...passed } = request;
    expect(node.last!.path).toBe("/model/us.anthropic.claude-wiretest-v1%3A0/invoke");
    expect(sent()).toEqual({ anthropic_version: "bedrock-2023-05-31", ...JSON.parse(JSON.stringify(passed)) });
    expect(message).toMatchObject({ type: "message", model: CLAUDE, content: [{ type: "text", text: "From the cached document: yes." }], usage: { input_tokens: 7, cache_read_input_tokens: 3400, cache_creation_input_tokens: 1200 } });

    node.claude = FIXTURES.tool;
    const streamed = await anthropic.messages.stream(request).finalMessage();
    expect(node.last!.path).toBe("/model/us.anthropic.claude-wiretest-v1%3A0/invoke-with-response-stream");
    expect(sent()).toEqual({ anthropic_version: "bedrock-2023-05-31", ...JSON.parse(JSON.stringify(passed)) });
    expect(streamed.content).toEqual([
      { type: "text", text: "Let me check the weather.", citations: null },
      expect.objectContaining({ type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { location: "San Francisco, CA", unit: "celsius" } }),
    ]);
    expect(streamed.stop_reason).toBe("tool_use");
  });

  it("an exception frame mid-stream fails the stream with Bedrock's words (chat and /v1/messages)", async () => {
    node.mode = "stream-exception";
    node.converse = CONVERSE.text;
    const failed = await drain((await openai.chat.completions.create({ model: NOVA, messages: [{ role: "user", content: "hello" }], stream: true })) as AsyncIterable<Any>).catch((e: Any) => e) as Any;
    expect(failed).toBeInstanceOf(Error);
    expect(String(failed.message)).toContain("modelStreamErrorException");
    const anthropic = new Anthropic({ apiKey: workspaceSecret, baseURL: baseUrl(), maxRetries: 0 });
    const broken = await anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: "user", content: "hi" }] }).finalMessage().catch((e: Any) => e) as Any;
    node.mode = "ok";
    expect(String(broken.message)).toContain("modelStreamErrorException");
  });

  it("throttling answers 429 with a Retry-After; a context overflow the 400 context_length_exceeded", async () => {
    node.mode = "throttled";
    const res = await fetch(`${baseUrl()}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${workspaceSecret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: NOVA, messages: [{ role: "user", content: "hello" }] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(((await res.json()) as Any).error.code).toBe("upstream_rate_limited");
    node.mode = "overflow";
    const overflow = await ask().catch((e: Any) => e);
    node.mode = "ok";
    expect(overflow).toMatchObject({ status: 400, code: "context_length_exceeded", error: { message: "Input is too long for requested model." } });
  });

  it("a wrong secret: the operator is told what to check in a 502, and the secret is never in it; the health check then takes the node offline", async () => {
    const stored = await db.node.findUniqueOrThrow({ where: { id: nodeId }, select: { credentialsEncrypted: true } });
    const wrong = "wrongSecretKey/DoNotEcho1234567890";
    // Lists answered unsigned first: the health check (every 500 ms here) would otherwise take the
    // node offline with the wrong secret before a call reaches it, and the call would find no node.
    node.listsUnsigned = true;
    await db.node.update({ where: { id: nodeId }, data: { credentialsEncrypted: seal(JSON.stringify({ ...KEYS, secret_access_key: wrong })) } });
    await notify(db, Channel.nodesChanged);
    try {
      let refused: Any | undefined;
      for (let i = 0; i < 50 && refused?.status !== 502; i++) {
        refused = await ask().catch((e: Any) => e);
        if (refused?.status !== 502) await new Promise((r) => setTimeout(r, 200));
      }
      expect(refused).toMatchObject({ status: 502, code: "upstream_auth_failed" });
      expect(refused!.message).toContain("secret access key");
      expect(JSON.stringify(refused!.error)).not.toContain(wrong);
      expect(JSON.stringify(refused!.error)).not.toContain(KEYS.secret_access_key);
      // Signed lists again: the next check fails, the node goes offline and its last error says why.
      node.listsUnsigned = false;
      await expect.poll(async () => (await db.node.findUniqueOrThrow({ where: { id: nodeId } })).status, { timeout: 10_000 }).toBe("offline");
      const checked = await db.node.findUniqueOrThrow({ where: { id: nodeId } });
      expect(checked.lastError).toContain("403");
      expect(checked.lastError).not.toContain(wrong);
    } finally {
      node.listsUnsigned = false;
      await db.node.update({ where: { id: nodeId }, data: { credentialsEncrypted: stored.credentialsEncrypted } });
      await refreshRouting();
    }
  });

  it("Claude Code on the node's Claude model completes a tool round trip: Read called over InvokeModel, the file's text sent back, an answer", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "claude-bedrock-"));
    writeFileSync(path.join(dir, "notes.txt"), "The launch code is 7421.\n");
    // The model on Bedrock: asked with Claude Code's tools, it calls Read; given Read's result, it answers from it.
    node.claude = (req) => {
      const last = req.messages.at(-1)!;
      const result = Array.isArray(last.content) ? (last.content.find((b) => b.type === "tool_result") as { content?: unknown } | undefined) : undefined;
      if (result) return message(req, [{ type: "text", text: `The file says: ${JSON.stringify(result.content).match(/launch code is \d+/)?.[0]}.`, citations: null }], "end_turn", { input_tokens: 80, output_tokens: 12 });
      if (!req.tools?.some((t) => "name" in t && t.name === "Read")) return FIXTURES.text(req);
      return message(req, [{ type: "tool_use", id: "toolu_01ReadNotes", name: "Read", input: { file_path: path.join(dir, "notes.txt") }, caller: undefined } as never], "tool_use", { input_tokens: 60, output_tokens: 20 });
    };
    const before = node.requests.length;
    try {
      const { secret } = await newWorkspace("5");
      const run = await runClaudeCode({ baseUrl: baseUrl(), key: secret, model: CLAUDE, prompt: "Read the file notes.txt", cwd: dir });
      const detail = `exit ${run.code}\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`;
      expect(run.code, detail).toBe(0);
      expect(run.result, detail).toMatchObject({ type: "result", is_error: false });
      expect(String(run.result!.result), detail).toContain("launch code is 7421");
      // The stand-in got Read's result, with the file's text, in Anthropic's body over InvokeModel.
      const bodies = node.requests.slice(before).filter((r) => r.path.startsWith("/model/us.anthropic.claude-wiretest"));
      expect(bodies.some((r) => JSON.stringify(r.body).includes("tool_result") && JSON.stringify(r.body).includes("The launch code is 7421")), detail).toBe(true);
      expect(bodies.every((r) => r.body?.anthropic_version === "bedrock-2023-05-31")).toBe(true);
    } finally {
      node.claude = FIXTURES.text;
    }
  }, 120_000);
});
