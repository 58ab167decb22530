// The anthropic wire format's translation, with no node: OpenAI chat requests as Messages
// requests, Messages as chat completions, recorded-style event streams as chunks, and round trips
// that fail on any field lost or changed.
import { describe, expect, it } from "vitest";
import type { Message, MessageCreateParamsBase } from "@anthropic-ai/sdk/resources/messages";
import { toMessagesRequest } from "../../server/providers/anthropic/request";
import { completionOf } from "../../server/providers/anthropic/response";
import { AnthropicStreamTranslator } from "../../server/providers/anthropic/stream";
import { modelCard } from "../../server/providers/anthropic/models";
import { FIXTURES, SIGNATURE, message, model, sse, streamEvents } from "../fakes/anthropic-upstream";

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const OPTIONS = { maxOutputTokens: 64_000 };
const REQ = { model: "claude-test" } as MessageCreateParamsBase;
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** The data of each SSE event of a recorded stream, as the relay hands them to a translator. */
function dataOf(recorded: string): string[] {
  return recorded
    .split("\n\n")
    .filter(Boolean)
    .map((e) => e.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n"));
}

/** Feeds a translator as the relay does: `done` checked after each push. */
function translate(data: string[], model = "claude-test"): { chunks: Any[]; done: boolean } {
  const t = new AnthropicStreamTranslator(model);
  const chunks: Any[] = [];
  for (const d of data) {
    chunks.push(...t.push(d).map((p) => JSON.parse(p)));
    if (t.done) return { chunks, done: true };
  }
  chunks.push(...t.end().map((p) => JSON.parse(p)));
  return { chunks, done: t.done };
}

/** Chunks put together as a client does: content and reasoning concatenated, tool calls by index, thinking blocks appended. */
function assemble(chunks: Any[]): Any {
  const msg: Any = { role: "assistant", content: "", reasoning_content: "", thinking_blocks: [], tool_calls: [] };
  let finish: unknown = null;
  let usage: unknown;
  for (const c of chunks) {
    if (c.usage) usage = c.usage;
    for (const choice of c.choices) {
      const d = choice.delta;
      if (choice.finish_reason) finish = choice.finish_reason;
      if (d.content) msg.content += d.content;
      if (d.reasoning_content) msg.reasoning_content += d.reasoning_content;
      if (d.thinking_blocks) msg.thinking_blocks.push(...d.thinking_blocks);
      for (const call of d.tool_calls ?? []) {
        const at = (msg.tool_calls[call.index] ??= { id: call.id, type: "function", function: { name: call.function.name, arguments: "" } });
        at.function.arguments += call.function.arguments ?? "";
      }
    }
  }
  return { msg, finish, usage };
}

describe("an OpenAI chat request as an Anthropic Messages request", () => {
  it("maps system/developer, images (base64 and URL), tool calls and merged tool results into alternating turns, keeping cache_control", () => {
    const req = toMessagesRequest(
      {
        model: "claude-test",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "developer", content: [{ type: "text", text: "Cite sources.", cache_control: { type: "ephemeral" } }] },
          {
            role: "user",
            content: [
              { type: "text", text: "What is in these?" },
              { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
              { type: "image_url", image_url: { url: "https://example.com/cat.jpg" }, cache_control: { type: "ephemeral", ttl: "1h" } },
            ],
          },
          { role: "user", content: "And the weather?", cache_control: { type: "ephemeral" } },
          {
            role: "assistant",
            content: "Checking.",
            tool_calls: [
              { id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } },
              { id: "toolu_2", type: "function", function: { name: "get_time", arguments: "not json" } },
            ],
          },
          { role: "tool", tool_call_id: "toolu_1", content: "18C" },
          { role: "tool", tool_call_id: "toolu_2", content: [{ type: "text", text: "10:00" }], cache_control: { type: "ephemeral" } },
          { role: "user", content: "Thanks" },
        ],
      },
      OPTIONS,
    );
    expect(req).toEqual({
      model: "claude-test",
      max_tokens: 64_000,
      system: [
        { type: "text", text: "You are terse." },
        { type: "text", text: "Cite sources.", cache_control: { type: "ephemeral" } },
      ],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in these?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
            { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" }, cache_control: { type: "ephemeral", ttl: "1h" } },
            { type: "text", text: "And the weather?", cache_control: { type: "ephemeral" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_1", name: "get_weather", input: { location: "Paris" } },
            // arguments that are not a JSON object cannot be tool_use input: {} rather than a failed turn
            { type: "tool_use", id: "toolu_2", name: "get_time", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "18C" },
            { type: "tool_result", tool_use_id: "toolu_2", content: "10:00", cache_control: { type: "ephemeral" } },
            { type: "text", text: "Thanks" },
          ],
        },
      ],
    });
  });

  it("maps limits, stops, sampling, tools, every tool_choice, parallel_tool_calls, json_schema, reasoning_effort and user; drops what Anthropic cannot take", () => {
    const tools = [{ type: "function", function: { name: "f", description: "does f", parameters: { type: "object", properties: { a: { type: "string" } } }, strict: true } }];
    const base = { model: "claude-test", messages: [{ role: "user", content: "hi" }], tools };
    const req = toMessagesRequest(
      {
        ...base,
        max_completion_tokens: 20_000,
        max_tokens: 10,
        stop: "END",
        temperature: 0.2,
        top_p: 0.9,
        tool_choice: "required",
        parallel_tool_calls: false,
        response_format: { type: "json_schema", json_schema: { name: "person", schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false }, strict: true } },
        reasoning_effort: "medium",
        user: "user-42",
        n: 3,
        logprobs: true,
        top_logprobs: 2,
        frequency_penalty: 1,
        presence_penalty: 1,
        seed: 7,
        logit_bias: { "1": 5 },
        metadata: { a: "b" },
        stream_options: { include_usage: true },
      },
      OPTIONS,
    );
    expect(req).toEqual({
      model: "claude-test",
      max_tokens: 20_000,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      stop_sequences: ["END"],
      temperature: 0.2,
      top_p: 0.9,
      tools: [{ name: "f", description: "does f", input_schema: { type: "object", properties: { a: { type: "string" } } }, strict: true }],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      output_config: { format: { type: "json_schema", schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false } } },
      thinking: { type: "enabled", budget_tokens: 8192 },
      metadata: { user_id: "user-42" },
    });
    const choice = (c: unknown, parallel?: boolean) => toMessagesRequest({ ...base, tool_choice: c, parallel_tool_calls: parallel }, OPTIONS).tool_choice;
    expect(choice("auto")).toEqual({ type: "auto" });
    expect(choice("none")).toEqual({ type: "none" });
    expect(choice({ type: "function", function: { name: "f" } })).toEqual({ type: "tool", name: "f" });
    expect(choice(undefined)).toBeUndefined();
    expect(choice(undefined, false)).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(toMessagesRequest({ ...base, stop: ["a", "b"], max_tokens: 300 }, OPTIONS)).toMatchObject({ stop_sequences: ["a", "b"], max_tokens: 300 });
  });

  it("json_object is a forced JSON tool; reasoning budgets fit under max_tokens, and effort none disables thinking", () => {
    const base = { model: "claude-test", messages: [{ role: "user", content: "hi" }] };
    const json = toMessagesRequest({ ...base, response_format: { type: "json_object" } }, OPTIONS);
    expect(json.tools).toEqual([{ name: "json_response", description: expect.any(String), input_schema: { type: "object", additionalProperties: true } }]);
    expect(json.tool_choice).toEqual({ type: "tool", name: "json_response" });
    expect(toMessagesRequest({ ...base, reasoning_effort: "high", max_tokens: 5000 }, OPTIONS).thinking).toEqual({ type: "enabled", budget_tokens: 4999 });
    expect(toMessagesRequest({ ...base, reasoning_effort: "low", max_tokens: 1000 }, OPTIONS).thinking).toBeUndefined();
    expect(toMessagesRequest({ ...base, reasoning_effort: "none" }, OPTIONS).thinking).toEqual({ type: "disabled" });
  });

  it("an assistant's thinking_blocks go back first, signatures intact; reasoning_content without a signature is not sent", () => {
    const req = toMessagesRequest(
      {
        model: "claude-test",
        messages: [
          { role: "user", content: "2+2?" },
          {
            role: "assistant",
            content: "4",
            reasoning_content: "adding",
            thinking_blocks: [
              { type: "thinking", thinking: "adding", signature: SIGNATURE },
              { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
            ],
          },
          { role: "user", content: "and 3+3?" },
          { role: "assistant", content: "6", reasoning_content: "unsigned" },
        ],
      },
      OPTIONS,
    );
    expect(req.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "adding", signature: SIGNATURE },
        { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
        { type: "text", text: "4" },
      ],
    });
    expect(req.messages[3]).toEqual({ role: "assistant", content: [{ type: "text", text: "6" }] });
  });

  it("refuses content parts Anthropic has no block for, with a 400", () => {
    const call = () => toMessagesRequest({ model: "m", messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "x", format: "wav" } }] }] }, OPTIONS);
    expect(call).toThrow(expect.objectContaining({ status: 400, code: "unsupported_parameter" }));
  });
});

describe("an Anthropic Message as a chat.completion", () => {
  it("text, end_turn and usage", () => {
    const c = completionOf(FIXTURES.text(REQ), "claude-test") as Any;
    expect(c).toEqual({
      id: "chatcmpl-msg_01XFDUDYJgAACzvnptvVoYEL",
      object: "chat.completion",
      created: expect.any(Number),
      model: "claude-test",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello! How can I help you today?", refusal: null }, logprobs: null, finish_reason: "stop" }],
      usage: { prompt_tokens: 21, completion_tokens: 12, total_tokens: 33, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } },
    });
    expect(Math.abs(c.created - Date.now() / 1000)).toBeLessThan(5);
  });

  it("thinking as reasoning_content and thinking_blocks, thinking tokens as reasoning tokens", () => {
    const c = completionOf(FIXTURES.thinking(REQ), "claude-test") as Any;
    expect(c.choices[0].message).toEqual({
      role: "assistant",
      content: "2 + 2 = 4.",
      refusal: null,
      reasoning_content: "The user asks for 2+2. That is 4.",
      thinking_blocks: [{ type: "thinking", thinking: "The user asks for 2+2. That is 4.", signature: SIGNATURE }],
    });
    expect(c.usage).toEqual({ prompt_tokens: 30, completion_tokens: 95, total_tokens: 125, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 80 } });
  });

  it("parallel tool calls keep their ids and order, arguments as JSON text", () => {
    const c = completionOf(FIXTURES.parallel(REQ), "claude-test") as Any;
    expect(c.choices[0].finish_reason).toBe("tool_calls");
    expect(c.choices[0].message.content).toBeNull();
    expect(c.choices[0].message.tool_calls).toEqual([
      { id: "toolu_01Pa1", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } },
      { id: "toolu_01Pa2", type: "function", function: { name: "get_time", arguments: '{"timezone":"Europe/Paris","format":{"hours":24}}' } },
    ]);
  });

  it("cache reads and writes count in prompt_tokens and are named in its details", () => {
    expect((completionOf(FIXTURES.cached(REQ), "m") as Any).usage).toEqual({
      prompt_tokens: 7 + 1200 + 3400,
      completion_tokens: 9,
      total_tokens: 4616,
      prompt_tokens_details: { cached_tokens: 3400, cache_write_tokens: 1200 },
    });
  });

  it("stop reasons: stop_sequence -> stop, max_tokens -> length, refusal -> content_filter, model_context_window_exceeded -> length", () => {
    const finish = (m: Message) => (completionOf(m, "m") as Any).choices[0].finish_reason;
    expect(finish(FIXTURES.stopSequence({ ...REQ, stop_sequences: ["four"] }))).toBe("stop");
    expect(finish(FIXTURES.maxTokens({ ...REQ, max_tokens: 5 }))).toBe("length");
    expect(finish(FIXTURES.refusal(REQ))).toBe("content_filter");
    expect(finish(message(REQ, [], "model_context_window_exceeded", {}))).toBe("length");
  });

  it("JSON mode's tool call is the answer's content, finishing with stop", () => {
    const c = completionOf(FIXTURES.jsonTool(REQ), "m") as Any;
    expect(c.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: '{"answer":42}' } });
    expect(c.choices[0].message.tool_calls).toBeUndefined();
  });
});

describe("Anthropic's stream events as chat.completion.chunk payloads", () => {
  it("a recorded text stream: role first, text deltas, finish, then the usage chunk at message_stop (done; ping ignored)", () => {
    const recorded = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY","type":"message","role":"assistant","content":[],"model":"claude-test","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
      'event: ping\ndata: {"type": "ping"}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"!"}}',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}',
      'event: message_stop\ndata: {"type":"message_stop"}',
      "",
    ].join("\n\n");
    const { chunks, done } = translate(dataOf(recorded));
    expect(done).toBe(true);
    const base = { id: "chatcmpl-msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", object: "chat.completion.chunk", created: expect.any(Number), model: "claude-test" };
    const choice = (delta: Any, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
    expect(chunks).toEqual([
      choice({ role: "assistant", content: "" }),
      choice({ content: "Hello" }),
      choice({ content: "!" }),
      choice({}, "stop"),
      { ...base, choices: [], usage: { prompt_tokens: 25, completion_tokens: 15, total_tokens: 40, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } } },
    ]);
  });

  it("a tool call's input split over input_json_delta pieces, and two parallel calls at indexes 0 and 1", () => {
    const { chunks } = translate(streamEvents(FIXTURES.parallel(REQ)).map((e) => JSON.stringify(e)));
    const calls = chunks.flatMap((c) => c.choices.flatMap((ch: Any) => ch.delta.tool_calls ?? []));
    expect(calls[0]).toEqual({ index: 0, id: "toolu_01Pa1", type: "function", function: { name: "get_weather", arguments: "" } });
    expect(calls.filter((c: Any) => c.index === 0).length).toBeGreaterThan(3);
    expect(calls.find((c: Any) => c.index === 1)).toEqual({ index: 1, id: "toolu_01Pa2", type: "function", function: { name: "get_time", arguments: "" } });
    expect(assemble(chunks).finish).toBe("tool_calls");
  });

  it("an error event fails the stream with the node's message once the node's body ends (nothing after it is read)", () => {
    const t = new AnthropicStreamTranslator("m");
    expect(t.push(JSON.stringify(streamEvents(FIXTURES.text(REQ))[0]))).toHaveLength(1);
    expect(t.push('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toEqual([]);
    expect(t.push('{"type":"message_stop"}')).toEqual([]);
    expect(t.done).toBe(false);
    expect(t.end()).toEqual(['{"error":{"message":"Overloaded"}}']);
  });

  it("an unreadable event fails the stream, once the node's body ends", () => {
    const t = new AnthropicStreamTranslator("m");
    expect(t.push("{not json")).toEqual([]);
    expect(t.end().map((p) => JSON.parse(p))).toEqual([{ error: { message: "The node sent an unreadable stream event." } }]);
  });

  it("JSON mode streamed: the JSON tool's input pieces are the content, finishing with stop, and no tool call shows", () => {
    const { chunks } = translate(streamEvents(FIXTURES.jsonTool(REQ)).map((e) => JSON.stringify(e)));
    const { msg, finish } = assemble(chunks);
    expect(msg.content).toBe('{"answer":42}');
    expect(msg.tool_calls).toEqual([]);
    expect(finish).toBe("stop");
  });

  it("a stream that ends without message_stop is not done (the relay fails it)", () => {
    const events = streamEvents(FIXTURES.text(REQ)).slice(0, -1).map((e) => JSON.stringify(e));
    expect(translate(events).done).toBe(false);
  });

  it("the SSE framing of the fake is what the translator reads", () => {
    const recorded = streamEvents(FIXTURES.text(REQ)).map(sse).join("");
    expect(assemble(translate(dataOf(recorded)).chunks).msg.content).toBe("Hello! How can I help you today?");
  });
});

describe("fidelity: nothing lost or changed on the way", () => {
  const fixtures = Object.entries(FIXTURES).filter(([name]) => name !== "jsonTool");

  it.each(fixtures)("%s: the streamed chunks put together equal the non-streamed completion", (_name, fixture) => {
    const m = fixture({ ...REQ, stop_sequences: ["three"], max_tokens: 6 });
    const expected = completionOf(m, "claude-test") as Any;
    const { chunks, done } = translate(streamEvents(m).map((e) => JSON.stringify(e)));
    expect(done).toBe(true);
    const { msg, finish, usage } = assemble(chunks);
    const want = expected.choices[0].message;
    expect(msg.content).toBe(want.content ?? "");
    expect(msg.reasoning_content).toBe(want.reasoning_content ?? "");
    expect(msg.thinking_blocks).toEqual(want.thinking_blocks ?? []);
    expect(msg.tool_calls).toEqual(want.tool_calls ?? []);
    expect(finish).toBe(expected.choices[0].finish_reason);
    expect(usage).toEqual(expected.usage);
    expect(chunks.every((c) => c.id === expected.id && c.model === "claude-test")).toBe(true);
  });

  it.each(fixtures)("%s: the answer sent back on the next turn is the Message's content again", (_name, fixture) => {
    const m = fixture({ ...REQ, stop_sequences: ["three"], max_tokens: 6 });
    const answer = (completionOf(m, "claude-test") as Any).choices[0].message;
    const next = toMessagesRequest({ model: "claude-test", messages: [{ role: "user", content: "q" }, answer] }, OPTIONS);
    // What the API adds to an answer's blocks (citations, the caller of a tool) is not part of a request.
    const sent = m.content.map((b) => {
      const { citations: _c, caller: _k, ...rest } = b as Any;
      return rest;
    });
    expect(next.messages.slice(1)).toEqual(sent.length ? [{ role: "assistant", content: sent }] : []);
  });

  it("a tool round trip: calls out, results in (by id), images in results", () => {
    const answer = (completionOf(FIXTURES.parallel(REQ), "m") as Any).choices[0].message;
    const next = toMessagesRequest(
      {
        model: "m",
        messages: [
          { role: "user", content: "weather and time in Paris" },
          answer,
          { role: "tool", tool_call_id: answer.tool_calls[0].id, content: "18C" },
          { role: "tool", tool_call_id: answer.tool_calls[1].id, content: [{ type: "text", text: "a map:" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }] },
        ],
      },
      OPTIONS,
    );
    expect(next.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_01Pa1", content: "18C" },
        {
          type: "tool_result",
          tool_use_id: "toolu_01Pa2",
          content: [
            { type: "text", text: "a map:" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
          ],
        },
      ],
    });
  });
});

describe("Anthropic's model list as model cards", () => {
  it("unpriced chat cards; the list's limits and capabilities where given, documented defaults otherwise", () => {
    const bare = modelCard(model("claude-bare"));
    expect(bare).toMatchObject({ id: "claude-bare", owned_by: "anthropic", provider: "anthropic", type: "chat", context_length: 200_000, max_output_tokens: 32_000, knowledge_cutoff: "", deprecated: false });
    expect(bare.capabilities).toEqual({ input_modalities: ["text", "image"], output_modalities: ["text"], json_mode: true, reasoning: true, streaming: true, structured_output: true, tools: true });
    // Every price 0 and the status "unpriced": the model is not served until an operator prices it.
    // A batch line of it would cost the default half of its price.
    const { pricing_status, batch_discount, ...prices } = bare.pricing as Record<string, string>;
    expect(pricing_status).toBe("unpriced");
    expect(batch_discount).toBe("0.5");
    expect(Object.keys(prices).sort()).toEqual(["cache_read_per_1m", "cache_write_per_1m", "fine_tuned_input_per_1m", "fine_tuned_output_per_1m", "input_per_1m", "output_per_1m", "per_1m_chars", "per_audio_second", "per_image", "per_video_second", "reasoning_per_1m", "training_per_1m"]);
    expect(new Set(Object.values(prices))).toEqual(new Set(["0"]));
    const sized = modelCard(model("claude-sized", { max_input_tokens: 1_000_000, max_tokens: 128_000, display_name: "Claude Sized" }));
    expect(sized).toMatchObject({ display_name: "Claude Sized", context_length: 1_000_000, max_output_tokens: 128_000, created: Date.parse("2026-02-17T00:00:00Z") / 1000 });
  });
});
