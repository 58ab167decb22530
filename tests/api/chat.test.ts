// POST /v1/chat/completions through the gateway to the built-in node, with the official SDK.
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { db } from "../../server/infra/db/client";
import { formatMoney, money } from "../../server/kernel/money";
import { newWorkspace } from "../helpers";

const MODEL = "local-chat-sim";
const ask = (content: string) => [{ role: "user" as const, content }];

/** local-chat-sim's prices: $0.15 / 1M input, $0.075 / 1M cached, $0.6 / 1M output. */
function priceOf(u: { prompt_tokens: number; completion_tokens: number }) {
  return formatMoney(money("0.15").times(u.prompt_tokens).plus(money("0.6").times(u.completion_tokens)).dividedBy(1_000_000));
}

describe("chat completions", () => {
  it("answers with every field of part 2.3 and bills exactly the usage, once", async () => {
    const { openai, workspace } = await newWorkspace("2");
    const { data, response } = await openai.chat.completions.create({ model: MODEL, messages: ask("Tell me about gateways") }).withResponse();
    expect(data).toMatchObject({
      id: expect.any(String),
      object: "chat.completion",
      created: expect.any(Number),
      model: MODEL,
      service_tier: expect.any(String),
      system_fingerprint: expect.any(String),
    });
    const choice = data.choices[0]!;
    expect(choice).toMatchObject({ index: 0, finish_reason: "stop", message: { role: "assistant", content: expect.any(String), refusal: null } });
    expect(data.usage).toMatchObject({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: data.usage!.prompt_tokens + data.usage!.completion_tokens,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    });
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: response.headers.get("x-request-id")! } });
    expect(event).toMatchObject({ workspaceId: workspace.id, modelId: MODEL, endpoint: "/v1/chat/completions", inputTokens: data.usage!.prompt_tokens, outputTokens: data.usage!.completion_tokens });
    expect(formatMoney(event.cost)).toBe(priceOf(data.usage!));
    const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(formatMoney(ws.balance)).toBe(formatMoney(money(2).minus(priceOf(data.usage!))));
  });

  it("streams deltas that add up to the plain answer, with usage only when asked", async () => {
    const { openai, workspace } = await newWorkspace("2");
    const plain = await openai.chat.completions.create({ model: MODEL, messages: ask("stream me"), seed: 7 });
    let text = "";
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null = null;
    const stream = await openai.chat.completions.create({ model: MODEL, messages: ask("stream me"), seed: 7, stream: true, stream_options: { include_usage: true } });
    for await (const chunk of stream) {
      expect(chunk.model).toBe(MODEL);
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(plain.choices[0]!.message.content);
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: plain.usage!.prompt_tokens, completion_tokens: plain.usage!.completion_tokens });
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events).toHaveLength(2);
    expect(events.every((e) => formatMoney(e.cost) === priceOf(plain.usage!))).toBe(true);
  });

  it("writes SSE frames `data: <chunk>` and exactly one `data: [DONE]`, on the raw bytes", async () => {
    const { secret } = await newWorkspace("1");
    const res = await fetch(`${inject("baseUrl")}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: ask("raw"), stream: true }),
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    const raw = await res.text();
    expect(raw.endsWith("data: [DONE]\n\n")).toBe(true);
    const frames = raw.split("\n\n").filter(Boolean);
    expect(frames.filter((f) => f === "data: [DONE]")).toHaveLength(1);
    for (const frame of frames.slice(0, -1)) {
      expect(frame.startsWith("data: ")).toBe(true);
      const chunk = JSON.parse(frame.slice(6));
      expect(chunk.object).toBe("chat.completion.chunk");
      // the usage chunk the gateway asked for is not passed on when the client did not ask
      expect(chunk.choices.length).toBeGreaterThan(0);
      expect(chunk.usage ?? null).toBeNull();
    }
  });

  it("returns a tool call when tools are given and the prompt asks for one", async () => {
    const { openai } = await newWorkspace("1");
    const completion = await openai.chat.completions.create({
      model: MODEL,
      messages: ask("Please call get_weather for Paris"),
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }],
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls![0]!;
    expect(call.type).toBe("function");
    if (call.type !== "function") throw new Error("not a function call");
    expect(call.function.name).toBe("get_weather");
    expect(typeof JSON.parse(call.function.arguments).city).toBe("string");
  });

  it("returns valid JSON under response_format json_object", async () => {
    const { openai } = await newWorkspace("1");
    const completion = await openai.chat.completions.create({ model: MODEL, messages: ask("answer in JSON"), response_format: { type: "json_object" } });
    expect(() => JSON.parse(completion.choices[0]!.message.content!)).not.toThrow();
  });

  it("honours max_tokens with finish_reason length", async () => {
    const { openai } = await newWorkspace("1");
    const completion = await openai.chat.completions.create({ model: MODEL, messages: ask("long please"), max_tokens: 3 });
    expect(completion.choices[0]!.finish_reason).toBe("length");
    expect(completion.usage!.completion_tokens).toBe(3);
  });

  it.each([
    [{ temperature: 3 }, "temperature"],
    [{ top_p: 1.5 }, "top_p"],
    [{ frequency_penalty: -3 }, "frequency_penalty"],
    [{ presence_penalty: 2.5 }, "presence_penalty"],
    [{ n: 0 }, "n"],
    [{ max_tokens: 0 }, "max_tokens"],
    [{ max_completion_tokens: 1.5 }, "max_completion_tokens"],
    [{ seed: "x" }, "seed"],
    [{ stop: ["a", "b", "c", "d", "e"] }, "stop"],
    [{ messages: [] }, "messages"],
    [{ messages: [{ role: "wizard", content: "hi" }] }, "messages[0].role"],
    [{ messages: [{ role: "tool", content: "x" }] }, "messages[0].tool_call_id"],
    [{ response_format: { type: "yaml" } }, "response_format.type"],
    [{ tools: [{ type: "function", function: { name: "bad name!" } }] }, "tools[0].function.name"],
    [{ tool_choice: "auto" }, "tool_choice"],
    [{ max_tokens: 100_000 }, "max_tokens"],
    [{ model: "local-embed-ngram" }, "model"],
    [{ stream: "yes" }, "stream"],
  ])("rejects %j with 400 naming `%s`, before any node or money", async (patch, param) => {
    const { secret, workspace } = await newWorkspace("1");
    const res = await fetch(`${inject("baseUrl")}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: ask("hi"), ...patch }),
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toMatchObject({ param, type: "invalid_request_error", message: expect.any(String) });
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("an unknown model is 404 model_not_found", async () => {
    const { openai } = await newWorkspace("1");
    const err = await openai.chat.completions.create({ model: "nope", messages: ask("hi") }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.error).toMatchObject({ code: "model_not_found", param: "model" });
  });

  it("a workspace with no credit gets 402 insufficient_quota and costs nothing", async () => {
    const { openai, workspace } = await newWorkspace("0");
    const err = await openai.chat.completions.create({ model: MODEL, messages: ask("hi") }).catch((e) => e);
    expect(err.status).toBe(402);
    expect(err.error).toMatchObject({ code: "insufficient_quota", type: "insufficient_quota" });
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("a node failure before any output is a 5xx in the error shape and costs nothing", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const err = await openai.chat.completions.create({ model: MODEL, messages: ask("[sim:fail] now") }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(502);
    expect(err.error).toMatchObject({ code: "upstream_error", type: "server_error" });
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("a node failure mid-stream reaches the SDK as an error, and costs nothing", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const stream = await openai.chat.completions.create({ model: MODEL, messages: ask("[sim:fail-mid-stream]"), stream: true });
    const err = await (async () => {
      for await (const _ of stream);
    })().catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });
});
