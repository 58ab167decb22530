// POST /v1/messages and /v1/messages/count_tokens (Anthropic's Messages API) through the gateway
// to the built-in node, an OpenAI-format node: the official Anthropic SDK as the client.
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { createKey } from "../../server/identity/keys/create-key";
import { db } from "../../server/infra/db/client";
import { formatMoney, money } from "../../server/kernel/money";
import { baseUrl, newWorkspace } from "../helpers";

const MODEL = "local-chat-sim";

const anthropic = (apiKey: string) => new Anthropic({ apiKey, baseURL: baseUrl(), maxRetries: 0 });

/** local-chat-sim's prices: $0.15 / 1M input, $0.6 / 1M output (no cache reads here). */
const priceOf = (u: { input_tokens: number; output_tokens: number }) =>
  formatMoney(money("0.15").times(u.input_tokens).plus(money("0.6").times(u.output_tokens)).dividedBy(1_000_000));

const WEATHER = {
  name: "get_weather",
  description: "The weather in a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};

/** The event names of a raw SSE body, in order. */
function eventNames(body: string): string[] {
  return [...body.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]!);
}

describe("the Messages API", () => {
  it("answers a message in Anthropic's shape, with the key in x-api-key, and bills its usage once", async () => {
    const { secret, workspace } = await newWorkspace("1");
    const { data, response } = await anthropic(secret)
      .messages.create({ model: MODEL, max_tokens: 64, system: "Be brief.", messages: [{ role: "user", content: "Tell me about gateways" }] })
      .withResponse();
    expect(data).toMatchObject({ id: expect.stringMatching(/^msg_/), type: "message", role: "assistant", model: MODEL, stop_sequence: null });
    expect(["end_turn", "max_tokens"]).toContain(data.stop_reason);
    expect(data.content).toEqual([{ type: "text", text: expect.any(String) }]);
    expect(data.usage).toEqual({ input_tokens: expect.any(Number), output_tokens: expect.any(Number), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    expect(data.usage.input_tokens).toBeGreaterThan(0);
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ id: response.headers.get("x-request-id"), endpoint: "/v1/messages", modelId: MODEL, inputTokens: data.usage.input_tokens, outputTokens: data.usage.output_tokens });
    expect(formatMoney(events[0]!.cost)).toBe(priceOf(data.usage));
  });

  it("takes the key as a bearer token too", async () => {
    const { secret } = await newWorkspace("1");
    const client = new Anthropic({ authToken: secret, apiKey: null, baseURL: baseUrl(), maxRetries: 0 });
    const message = await client.messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    expect(message.type).toBe("message");
  });

  it("streams Anthropic's event sequence, which the SDK assembles into the message, billed once", async () => {
    const { secret, workspace } = await newWorkspace("1");
    const stream = anthropic(secret).messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: "user", content: "stream me a story" }] });
    let text = "";
    stream.on("text", (t) => (text += t));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: "text", text }]);
    expect(text.length).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ endpoint: "/v1/messages", outputTokens: message.usage.output_tokens });

    const raw = await fetch(`${baseUrl()}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": secret, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, max_tokens: 32, stream: true, messages: [{ role: "user", content: "stream me" }] }),
    });
    expect(raw.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const names = eventNames(await raw.text());
    expect(names.slice(0, 3)).toEqual(["message_start", "ping", "content_block_start"]);
    expect(names.slice(-3)).toEqual(["content_block_stop", "message_delta", "message_stop"]);
    expect(new Set(names.slice(3, -3))).toEqual(new Set(["content_block_delta"]));
  });

  it("calls a tool, plain and streamed, and answers its result in a second turn", async () => {
    const { secret } = await newWorkspace("1");
    const client = anthropic(secret);
    const ask = { model: MODEL, max_tokens: 128, tools: [WEATHER], messages: [{ role: "user" as const, content: "call get_weather for Paris" }] };
    const first = await client.messages.create(ask);
    expect(first.stop_reason).toBe("tool_use");
    const call = first.content.find((b) => b.type === "tool_use")!;
    expect(call).toMatchObject({ type: "tool_use", id: expect.any(String), name: "get_weather", input: { city: expect.any(String) } });

    const streamed = await client.messages.stream(ask).finalMessage();
    expect(streamed.stop_reason).toBe("tool_use");
    expect(streamed.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "get_weather", input: { city: expect.any(String) } });

    const second = await client.messages.create({
      ...ask,
      messages: [
        ...ask.messages,
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "18°C and sunny" }] },
      ],
    });
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content[0]).toMatchObject({ type: "text", text: expect.any(String) });
  });

  it("calls the tool a coding agent's request asks for, past its <system-reminder> blocks and a trailing system turn", async () => {
    const { secret } = await newWorkspace("1");
    const tools = [
      { name: "Grep", description: "Search files", input_schema: { type: "object" as const, properties: { pattern: { type: "string" } }, required: ["pattern"] } },
      { name: "Read", description: "Read a file", input_schema: { type: "object" as const, properties: { file_path: { type: "string" } }, required: ["file_path"] } },
    ];
    // Claude Code's reminders: text blocks after the request, naming other tools.
    const reminder = { type: "text" as const, text: "<system-reminder>Prefer Grep; use it before anything else.</system-reminder>" };
    const request = { type: "text" as const, text: "Read the file README.md" };
    const inline = await anthropic(secret).messages.create({ model: MODEL, max_tokens: 128, tools, messages: [{ role: "user", content: [request, reminder] }] });
    expect(inline.stop_reason).toBe("tool_use");
    expect(inline.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "Read", input: { file_path: expect.any(String) } });

    const trailing = await anthropic(secret).messages.create({
      model: MODEL,
      max_tokens: 128,
      tools,
      messages: [
        { role: "user", content: [request] },
        { role: "system", content: "Reminder: answer briefly." },
      ],
    });
    expect(trailing.stop_reason).toBe("tool_use");
    expect(trailing.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "Read" });
  });

  it("counts a request's input tokens: more for a longer prompt, 404 for an unknown model", async () => {
    const { secret } = await newWorkspace("1");
    const client = anthropic(secret);
    const short = await client.messages.countTokens({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
    const long = await client.messages.countTokens({ model: MODEL, system: "You are a careful assistant.", tools: [WEATHER], messages: [{ role: "user", content: "hi ".repeat(200) }] });
    expect(short.input_tokens).toBeGreaterThan(0);
    expect(long.input_tokens).toBeGreaterThan(short.input_tokens + 150);
    await expect(client.messages.countTokens({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({
      status: 404,
      error: { type: "error", error: { type: "not_found_error" } },
    });
  });

  it("counts tokens only for models the key may call, as it may only see those", async () => {
    const { workspace } = await newWorkspace("1");
    const { secret } = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "embeddings only", models: ["local-embed-ngram"] }));
    await expect(anthropic(secret).messages.countTokens({ model: MODEL, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({
      status: 404,
      error: { error: { type: "not_found_error" } },
    });
  });

  it("answers errors in Anthropic's shape with its types", async () => {
    const { secret } = await newWorkspace("1");
    await expect(anthropic("sk-gw-not-a-key").messages.create({ model: MODEL, max_tokens: 8, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({
      status: 401,
      error: { type: "error", error: { type: "authentication_error" }, request_id: expect.stringMatching(/^req_/) },
    });
    const res = await fetch(`${baseUrl()}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": secret, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "no max_tokens" }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: expect.stringContaining("max_tokens") } });
    await expect(anthropic(secret).messages.create({ model: "no-such-model", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({
      status: 404,
      error: { error: { type: "not_found_error" } },
    });
    const { workspace, secret: broke } = await newWorkspace("0");
    expect(workspace.id).toBeTruthy();
    await expect(anthropic(broke).messages.create({ model: MODEL, max_tokens: 8, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({
      status: 402,
      error: { error: { type: "billing_error" } },
    });
  });

  it("serves a coding agent's request as it sends it: betas, a large max_tokens, thinking, cached system blocks, a system turn, many tools", async () => {
    const { secret, workspace } = await newWorkspace("1");
    const tools = Array.from({ length: 12 }, (_, i) => ({
      name: `tool_${i}`,
      description: `Tool number ${i}`,
      input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      ...(i === 11 && { cache_control: { type: "ephemeral" } }),
    }));
    const res = await fetch(`${baseUrl()}/v1/messages?beta=true`, {
      method: "POST",
      headers: {
        "x-api-key": secret,
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,prompt-caching-scope-2026-01-05,some-future-beta",
        "content-type": "application/json",
      },
      body: JSON.stringify({
        model: MODEL,
        max_tokens: 32000,
        stream: true,
        thinking: { type: "adaptive" },
        context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
        output_config: { effort: "high" },
        metadata: { user_id: "user_abc_account_def_session_ghi" },
        system: [
          { type: "text", text: "You are a coding agent.", cache_control: { type: "ephemeral" } },
          { type: "text", text: "Work in the repository.", cache_control: { type: "ephemeral" } },
        ],
        tools,
        messages: [
          { role: "user", content: [{ type: "text", text: "What is in the README?", cache_control: { type: "ephemeral" } }] },
          { role: "system", content: "Reminder: answer briefly." },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const names = eventNames(await res.text());
    expect(names[0]).toBe("message_start");
    expect(names.at(-1)).toBe("message_stop");
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events).toHaveLength(1);
    expect(events[0]!.endpoint).toBe("/v1/messages");
  });
});
