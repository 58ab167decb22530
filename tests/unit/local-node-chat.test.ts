// The built-in node's simulated chat model, called over real HTTP with the official SDK and with
// raw fetch for the SSE bytes. Starts its own node; ignores the gateway of the global setup.
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalNode } from "../../local-node/listen";
import { node, openai, useLocalNode } from "../local-node-fixture";
import { encode } from "../../local-node/tokenizer";

const MODEL = "local-chat-sim";

useLocalNode();

const user = (content: string): ChatCompletionMessageParam[] => [{ role: "user", content }];

const weather: ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather of a city",
    parameters: {
      type: "object",
      properties: {
        city: { type: "string" },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        days: { type: "integer", minimum: 1, maximum: 7 },
        detailed: { type: "boolean" },
        note: { type: "string" },
      },
      required: ["city", "unit", "days", "detailed"],
    },
  },
};
const search: ChatCompletionTool = {
  type: "function",
  function: { name: "search_docs", parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } },
};

/** POSTs a chat request and returns the raw response. */
function post(body: unknown, base = node.url, signal?: AbortSignal): Promise<Response> {
  return fetch(`${base}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal });
}

/** The `data:` payloads of an SSE body, in order. */
function frames(text: string): string[] {
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((f) => {
      expect(f.startsWith("data: ")).toBe(true);
      return f.slice(6);
    });
}

describe("local node chat: plain completions", () => {
  it("answers deterministically, in OpenAI's shape, with tokenizer usage", async () => {
    const a = await openai.chat.completions.create({ model: MODEL, messages: user("Tell me about rivers.") });
    const b = await openai.chat.completions.create({ model: MODEL, messages: user("Tell me about rivers.") });
    const other = await openai.chat.completions.create({ model: MODEL, messages: user("Tell me about mountains.") });
    const seeded = await openai.chat.completions.create({ model: MODEL, messages: user("Tell me about rivers."), seed: 7 });
    const content = a.choices[0]!.message.content!;
    expect(b.choices[0]!.message.content).toBe(content);
    expect(other.choices[0]!.message.content).not.toBe(content);
    expect(seeded.choices[0]!.message.content).not.toBe(content);

    expect(a.id).toMatch(/^chatcmpl-/);
    expect(a).toMatchObject({ object: "chat.completion", model: MODEL, system_fingerprint: "fp_local_sim", service_tier: "default" });
    expect(a.choices[0]).toMatchObject({ index: 0, logprobs: null, finish_reason: "stop" });
    expect(a.choices[0]!.message).toEqual({ role: "assistant", content, refusal: null, annotations: [] });

    const completion = encode(content).length;
    expect(completion).toBeGreaterThanOrEqual(20);
    expect(completion).toBeLessThanOrEqual(80);
    expect(a.usage).toEqual({
      prompt_tokens: expect.any(Number),
      completion_tokens: completion,
      total_tokens: a.usage!.prompt_tokens + completion,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    });
    const longer = await openai.chat.completions.create({ model: MODEL, messages: user(`Tell me about rivers. ${"More words here. ".repeat(20)}`) });
    expect(longer.usage!.prompt_tokens).toBeGreaterThan(a.usage!.prompt_tokens + 50);
  });

  it("stops at max_tokens / max_completion_tokens (the smaller) with finish_reason length", async () => {
    const full = (await openai.chat.completions.create({ model: MODEL, messages: user("Count to ten.") })).choices[0]!.message.content!;
    const cut = await openai.chat.completions.create({ model: MODEL, messages: user("Count to ten."), max_tokens: 5 });
    expect(cut.choices[0]!.finish_reason).toBe("length");
    expect(cut.usage!.completion_tokens).toBe(5);
    expect(full.startsWith(cut.choices[0]!.message.content!)).toBe(true);
    const both = await openai.chat.completions.create({ model: MODEL, messages: user("Count to ten."), max_tokens: 10, max_completion_tokens: 3 });
    expect(both.usage!.completion_tokens).toBe(3);
    expect(both.choices[0]!.finish_reason).toBe("length");
  });

  it("cuts before a stop sequence with finish_reason stop", async () => {
    const messages = user("Describe a bridge.");
    const full = (await openai.chat.completions.create({ model: MODEL, messages })).choices[0]!.message.content!;
    const word = full.split(" ")[3]!;
    const stopped = await openai.chat.completions.create({ model: MODEL, messages, stop: ["zzz-never", ` ${word}`] });
    expect(stopped.choices[0]!.message.content).toBe(full.slice(0, full.indexOf(` ${word}`)));
    expect(stopped.choices[0]!.finish_reason).toBe("stop");
    const single = await openai.chat.completions.create({ model: MODEL, messages, stop: ` ${word}` });
    expect(single.choices[0]!.message.content).toBe(stopped.choices[0]!.message.content);
  });

  it("gives n different, deterministic choices", async () => {
    const a = await openai.chat.completions.create({ model: MODEL, messages: user("Three ideas, please."), n: 3 });
    const b = await openai.chat.completions.create({ model: MODEL, messages: user("Three ideas, please."), n: 3 });
    expect(a.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    const texts = a.choices.map((c) => c.message.content);
    expect(new Set(texts).size).toBe(3);
    expect(b.choices.map((c) => c.message.content)).toEqual(texts);
    expect(a.usage!.completion_tokens).toBe(texts.reduce((s, t) => s + encode(t!).length, 0));
  });

  it("returns valid JSON under response_format json_object and json_schema", async () => {
    const r = await openai.chat.completions.create({ model: MODEL, messages: user("Answer in JSON."), response_format: { type: "json_object" } });
    expect(typeof JSON.parse(r.choices[0]!.message.content!).answer).toBe("string");
    const s = await openai.chat.completions.create({
      model: MODEL,
      messages: user("A person as JSON."),
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "person",
          schema: { type: "object", properties: { name: { type: "string" }, age: { type: "integer" }, tags: { type: "array", items: { type: "string" } } }, required: ["name", "age", "tags"] },
        },
      },
    });
    const person = JSON.parse(s.choices[0]!.message.content!);
    expect(typeof person.name).toBe("string");
    expect(Number.isInteger(person.age)).toBe(true);
    expect(Array.isArray(person.tags)).toBe(true);
  });
});

describe("local node chat: tools", () => {
  it("calls the tool the prompt asks for, with arguments filling the required properties", async () => {
    const r = await openai.chat.completions.create({ model: MODEL, messages: user("Please call get_weather for Paris."), tools: [search, weather] });
    const choice = r.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call.id).toMatch(/^call_[0-9A-Za-z]{24}$/);
    expect(call.type).toBe("function");
    if (call.type !== "function") throw new Error("not a function call");
    expect(call.function.name).toBe("get_weather");
    const args = JSON.parse(call.function.arguments);
    expect(typeof args.city).toBe("string");
    expect(["celsius", "fahrenheit"]).toContain(args.unit);
    expect(Number.isInteger(args.days) && args.days >= 1 && args.days <= 7).toBe(true);
    expect(typeof args.detailed).toBe("boolean");
    expect(r.usage!.completion_tokens).toBe(encode("get_weather").length + encode(call.function.arguments).length);
    const again = await openai.chat.completions.create({ model: MODEL, messages: user("Please call get_weather for Paris."), tools: [search, weather] });
    expect(again.choices[0]!.message.tool_calls).toEqual(choice.message.tool_calls);
  });

  it("honours tool_choice, and answers in text after a tool result", async () => {
    const none = await openai.chat.completions.create({ model: MODEL, messages: user("use the tool"), tools: [weather], tool_choice: "none" });
    expect(none.choices[0]!.finish_reason).toBe("stop");
    expect(none.choices[0]!.message.tool_calls).toBeUndefined();
    const plain = await openai.chat.completions.create({ model: MODEL, messages: user("Hello!"), tools: [weather] });
    expect(plain.choices[0]!.message.tool_calls).toBeUndefined();
    const forced = await openai.chat.completions.create({
      model: MODEL,
      messages: user("Hello!"),
      tools: [weather, search],
      tool_choice: { type: "function", function: { name: "search_docs" } },
    });
    const forcedCall = forced.choices[0]!.message.tool_calls![0]!;
    expect(forcedCall.type === "function" && forcedCall.function.name).toBe("search_docs");
    const required = await openai.chat.completions.create({ model: MODEL, messages: user("Hello!"), tools: [weather, search], tool_choice: "required" });
    const requiredCall = required.choices[0]!.message.tool_calls![0]!;
    expect(requiredCall.type === "function" && requiredCall.function.name).toBe("get_weather");

    const after = await openai.chat.completions.create({
      model: MODEL,
      tools: [weather],
      messages: [
        ...user("call get_weather"),
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_1", content: "18 degrees" },
      ],
    });
    expect(after.choices[0]!.finish_reason).toBe("stop");
    expect(after.choices[0]!.message.content).toBeTruthy();
  });

  it("reads the user's last turn past the system messages and reminders a coding agent adds", async () => {
    const read: ChatCompletionTool = {
      type: "function",
      function: { name: "Read", parameters: { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] } },
    };
    const reminder = "<system-reminder>Do not use the search_docs tool unless asked.</system-reminder>";
    const trailing = await openai.chat.completions.create({
      model: MODEL,
      tools: [search, read],
      messages: [...user("Read the file README.md"), { role: "system", content: reminder }, { role: "developer", content: "Answer briefly." }],
    });
    expect(trailing.choices[0]!.finish_reason).toBe("tool_calls");
    const call = trailing.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.name).toBe("Read");

    // Reminders inside the user's turn, after the request: they name another tool, and say "use".
    const inline = await openai.chat.completions.create({
      model: MODEL,
      tools: [search, read],
      messages: [{ role: "user", content: [{ type: "text", text: "Read the file README.md" }, { type: "text", text: reminder }] }],
    });
    const inlineCall = inline.choices[0]!.message.tool_calls![0]!;
    expect(inlineCall.type === "function" && inlineCall.function.name).toBe("Read");

    // A reminder alone asks for nothing; after a tool result, system messages still leave a text answer.
    const only = await openai.chat.completions.create({ model: MODEL, tools: [search, read], messages: user(`Hello! ${reminder}`) });
    expect(only.choices[0]!.message.tool_calls).toBeUndefined();
    const after = await openai.chat.completions.create({
      model: MODEL,
      tools: [read],
      messages: [
        ...user("Read the file README.md"),
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "Read", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_1", content: "# Gateway" },
        { role: "system", content: reminder },
      ],
    });
    expect(after.choices[0]!.finish_reason).toBe("stop");
  });
});

describe("local node chat: streaming", () => {
  it("streams token deltas that concatenate to the non-streamed content", async () => {
    const messages = user("Stream me a story.");
    const whole = await openai.chat.completions.create({ model: MODEL, messages });
    const stream = await openai.chat.completions.create({ model: MODEL, messages, stream: true });
    let text = "";
    let deltas = 0;
    let finish: string | null = null;
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      const c = chunk.choices[0]!;
      if (c.delta.content) (text += c.delta.content), deltas++;
      if (c.finish_reason) finish = c.finish_reason;
    }
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(deltas).toBe(whole.usage!.completion_tokens);
    expect(finish).toBe("stop");
  });

  it("sends role first, one frame per token, usage only with include_usage, and [DONE] exactly once", async () => {
    const body = { model: MODEL, messages: user("Stream me a story."), stream: true, max_tokens: 8 };
    const res = await post({ ...body, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const data = frames(await res.text());
    expect(data.filter((d) => d === "[DONE]")).toHaveLength(1);
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "", refusal: null });
    expect(chunks.slice(1, 9).every((c) => typeof c.choices[0].delta.content === "string")).toBe(true);
    expect(chunks[9].choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: "length" });
    const last = chunks.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ completion_tokens: 8, total_tokens: last.usage.prompt_tokens + 8 });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);

    const without = frames(await (await post(body)).text());
    expect(without.filter((d) => d === "[DONE]")).toHaveLength(1);
    expect(without.slice(0, -1).every((d) => !("usage" in JSON.parse(d)))).toBe(true);
    expect(without).toHaveLength(data.length - 1);
  });

  it("streams tool calls as OpenAI does", async () => {
    const messages = user("Please use get_weather.");
    const whole = await openai.chat.completions.create({ model: MODEL, messages, tools: [weather] });
    const stream = await openai.chat.completions.create({ model: MODEL, messages, tools: [weather], stream: true });
    let id = "";
    let name = "";
    let args = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const t of chunk.choices[0]?.delta.tool_calls ?? []) {
        expect(t.index).toBe(0);
        id += t.id ?? "";
        name += t.function?.name ?? "";
        args += t.function?.arguments ?? "";
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    const call = whole.choices[0]!.message.tool_calls![0]!;
    if (call.type !== "function") throw new Error("not a function call");
    expect({ id, name, args }).toEqual({ id: call.id, name: call.function.name, args: call.function.arguments });
    expect(finish).toBe("tool_calls");
  });

  it("paces deltas with tokenDelayMs and delays the first byte with latencyMs", async () => {
    const slow = await startLocalNode({ tokenDelayMs: 30, latencyMs: 150 });
    try {
      const start = performance.now();
      const res = await post({ model: MODEL, messages: user("Slowly."), stream: true, max_tokens: 6 }, slow.url);
      expect(performance.now() - start).toBeGreaterThanOrEqual(140);
      const reader = res.body!.getReader();
      const arrivals: number[] = [];
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
        arrivals.push(performance.now());
      }
      expect(arrivals.at(-1)! - start).toBeGreaterThanOrEqual(150 + 5 * 30 - 10);
      expect(arrivals.length).toBeGreaterThanOrEqual(4); // frames arrive as they are written
    } finally {
      await slow.close();
    }
  });

  it("stops writing when the client disconnects, and keeps serving", async () => {
    const slow = await startLocalNode({ tokenDelayMs: 40 });
    let writesAfterClose = -1;
    slow.server.on("request", (_req, res) => {
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      res.write = ((...args: unknown[]) => {
        if (writesAfterClose >= 0) writesAfterClose++;
        return write(...args);
      }) as typeof res.write;
      res.on("close", () => (writesAfterClose = 0));
    });
    try {
      const abort = new AbortController();
      const res = await post({ model: MODEL, messages: user("A long story."), stream: true }, slow.url, abort.signal);
      await res.body!.getReader().read();
      abort.abort();
      await new Promise((r) => setTimeout(r, 400));
      expect(writesAfterClose).toBe(0);
      expect((await post({ model: MODEL, messages: user("Still there?") }, slow.url)).status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});

describe("local node chat: errors and simulator triggers", () => {
  it("answers an unknown model with 404 and a malformed body with 400, in OpenAI's error shape", async () => {
    const unknown = await post({ model: "nope", messages: user("hi") });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: "model_not_found", message: expect.any(String), param: "model", type: "invalid_request_error" } });
    const broken = await fetch(`${node.url}/v1/chat/completions`, { method: "POST", body: "{not json" });
    expect(broken.status).toBe(400);
    expect((await broken.json()).error).toMatchObject({ type: "invalid_request_error", code: expect.any(String) });
    const missing = await post({ model: MODEL });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toMatchObject({ code: "missing_required_parameter", param: "messages", type: "invalid_request_error" });
    const bad = await post({ model: MODEL, messages: user("hi"), max_tokens: 0 });
    expect((await bad.json()).error.param).toBe("max_tokens");
    await expect(openai.chat.completions.create({ model: "nope", messages: user("hi") })).rejects.toMatchObject({ status: 404, code: "model_not_found" });
  });

  it("[sim:fail] fails with 500 before any output, streaming or not", async () => {
    await expect(openai.chat.completions.create({ model: MODEL, messages: user("boom [sim:fail]") })).rejects.toMatchObject({
      status: 500,
      code: "simulated_failure",
      type: "server_error",
    });
    const res = await post({ model: MODEL, messages: user("boom [sim:fail]"), stream: true });
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect((await res.json()).error.code).toBe("simulated_failure");
  });

  it("[sim:fail-mid-stream] breaks the stream after the role and 3 deltas, without [DONE]", async () => {
    const res = await post({ model: MODEL, messages: user("break [sim:fail-mid-stream]"), stream: true });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = "";
    const broke = await (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return false;
          text += new TextDecoder().decode(value);
        }
      } catch {
        return true;
      }
    })();
    expect(broke).toBe(true);
    expect(text).not.toContain("[DONE]");
    const data = frames(text).map((d) => JSON.parse(d));
    expect(data).toHaveLength(4);
    expect(data[0].choices[0].delta.role).toBe("assistant");
    expect(data.slice(1).every((c) => typeof c.choices[0].delta.content === "string")).toBe(true);

    const sdk = await openai.chat.completions.create({ model: MODEL, messages: user("break [sim:fail-mid-stream]"), stream: true });
    await expect((async () => { for await (const _ of sdk) void _; })()).rejects.toThrow();
    await expect(openai.chat.completions.create({ model: MODEL, messages: user("break [sim:fail-mid-stream]") })).rejects.toMatchObject({ status: 500 });
  });

  it("[sim:429] rate-limits and [sim:slow] waits 2 s before the first byte", async () => {
    const limited = await post({ model: MODEL, messages: user("[sim:429]") });
    expect(limited.status).toBe(429);
    expect((await limited.json()).error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    const start = performance.now();
    const slow = await post({ model: MODEL, messages: user("[sim:slow] hi") });
    expect(slow.status).toBe(200);
    expect(performance.now() - start).toBeGreaterThanOrEqual(1990);
  });
});
