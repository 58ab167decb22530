// The Messages API's translation to and from chat completions, on shapes the built-in node does
// not produce: reasoning, parallel tool calls, cached tokens, images, tool errors.
import { describe, expect, it } from "vitest";
import { messageFromCompletion, usageOf } from "../../server/inference/messages/from-chat";
import { messageEvents } from "../../server/inference/messages/stream-events";
import { promptOf, toChatRequest } from "../../server/inference/messages/to-chat";
import { ZMessageCreate } from "../../server/inference/messages/schema";

async function* chunksOf(payloads: object[]): AsyncGenerator<string> {
  for (const p of payloads) yield JSON.stringify(p);
}

async function eventsOf(payloads: object[]): Promise<Record<string, any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const out = [];
  for await (const e of messageEvents(chunksOf(payloads), "m")) out.push(JSON.parse(e));
  return out;
}

describe("a Messages request as a chat completion", () => {
  it("maps system, images, tool uses and results (errors marked), tools and choices; lowers max_tokens; drops what has no place", () => {
    const req = ZMessageCreate.parse({
      model: "m",
      max_tokens: 50_000,
      system: [{ type: "text", text: "A", cache_control: { type: "ephemeral" } }, { type: "text", text: "B" }],
      stop_sequences: ["1", "2", "3", "4", "5"],
      top_k: 5,
      thinking: { type: "enabled", budget_tokens: 1024 },
      tools: [{ name: "f", input_schema: { type: "object" } }, { type: "web_search_20250305", name: "web_search" }],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      metadata: { user_id: "u1" },
      messages: [
        { role: "user", content: [{ type: "text", text: "look" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] },
        { role: "assistant", content: [{ type: "thinking", thinking: "hmm", signature: "s" }, { type: "text", text: "ok" }, { type: "tool_use", id: "t1", name: "f", input: { a: 1 } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "boom" }], is_error: true }, { type: "text", text: "and?" }] },
        { role: "system", content: "late" },
      ],
    });
    expect(toChatRequest(req, 4096)).toEqual({
      model: "m",
      max_tokens: 4096,
      stop: ["1", "2", "3", "4"],
      user: "u1",
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
      tool_choice: "required",
      parallel_tool_calls: false,
      messages: [
        { role: "system", content: "A\nB" },
        { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
        { role: "assistant", content: "ok", tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: '{"a":1}' } }] },
        { role: "tool", tool_call_id: "t1", content: "Error: boom" },
        { role: "user", content: "and?" },
        { role: "system", content: "late" },
      ],
    });
    expect(promptOf(req)).not.toHaveProperty("max_tokens");
  });
});

describe("a chat completion as a Message", () => {
  it("keeps reasoning, text and parallel tool calls; usage with cache reads apart", () => {
    const message = messageFromCompletion(
      {
        choices: [
          {
            finish_reason: "tool_calls",
            message: {
              reasoning_content: "think",
              content: "calling",
              tool_calls: [
                { id: "a", function: { name: "f", arguments: '{"x":1}' } },
                { id: "b", function: { name: "g", arguments: "not json" } },
              ],
            },
          },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 60 } },
      },
      "m",
    );
    expect(message).toMatchObject({
      type: "message",
      model: "m",
      stop_reason: "tool_use",
      content: [
        { type: "thinking", thinking: "think", signature: "" },
        { type: "text", text: "calling" },
        { type: "tool_use", id: "a", name: "f", input: { x: 1 } },
        { type: "tool_use", id: "b", name: "g", input: {} },
      ],
      usage: { input_tokens: 40, output_tokens: 7, cache_read_input_tokens: 60, cache_creation_input_tokens: 0 },
    });
    expect(usageOf(undefined)).toEqual({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });
});

describe("a chat stream as Anthropic's events", () => {
  it("opens and closes one block at a time: thinking, text, then each tool call with its JSON deltas; ends with the stop reason and usage", async () => {
    const events = await eventsOf([
      { choices: [{ index: 0, delta: { role: "assistant", reasoning_content: "th" } }] },
      { choices: [{ index: 0, delta: { reasoning_content: "ink" } }] },
      { choices: [{ index: 0, delta: { content: "Hi" } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "a", function: { name: "f", arguments: '{"x"' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ":1}" } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: "b", function: { name: "g", arguments: "{}" } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
      { choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 4 } } },
    ]);
    expect(events.map((e) => [e.type, e.index ?? null, e.delta?.type ?? e.content_block?.type ?? null])).toEqual([
      ["message_start", null, null],
      ["ping", null, null],
      ["content_block_start", 0, "thinking"],
      ["content_block_delta", 0, "thinking_delta"],
      ["content_block_delta", 0, "thinking_delta"],
      ["content_block_stop", 0, null],
      ["content_block_start", 1, "text"],
      ["content_block_delta", 1, "text_delta"],
      ["content_block_stop", 1, null],
      ["content_block_start", 2, "tool_use"],
      ["content_block_delta", 2, "input_json_delta"],
      ["content_block_delta", 2, "input_json_delta"],
      ["content_block_stop", 2, null],
      ["content_block_start", 3, "tool_use"],
      ["content_block_delta", 3, "input_json_delta"],
      ["content_block_stop", 3, null],
      ["message_delta", null, null],
      ["message_stop", null, null],
    ]);
    expect(events[9]!.content_block).toEqual({ type: "tool_use", id: "a", name: "f", input: {} });
    expect(events[10]!.delta.partial_json + events[11]!.delta.partial_json).toBe('{"x":1}');
    expect(events.at(-2)).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 6, output_tokens: 5, cache_read_input_tokens: 4, cache_creation_input_tokens: 0 },
    });
  });

  it("a stream cut at its limit ends with max_tokens", async () => {
    const events = await eventsOf([{ choices: [{ index: 0, delta: { content: "a" }, finish_reason: "length" }] }]);
    expect(events.at(-2)!.delta.stop_reason).toBe("max_tokens");
  });
});
