// What /v1/messages and /v1/messages/count_tokens refuse, as Anthropic refuses it: a 400
// `invalid_request_error` whose message names the field in Anthropic's form (`system.0.type`);
// and what they must not refuse: valid requests with fields the built-in node cannot use.
import Anthropic, { BadRequestError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { baseUrl, newWorkspace } from "../helpers";

const MODEL = "local-chat-sim";

const anthropic = (apiKey: string) => new Anthropic({ apiKey, baseURL: baseUrl(), maxRetries: 0 });

const hi = [{ role: "user" as const, content: "hi" }];
const WEATHER = { name: "get_weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } };

/** POSTs `body` as an Anthropic client would, bypassing the SDK's types. */
async function post(path: string, secret: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${baseUrl()}${path}`, {
    method: "POST",
    headers: { "x-api-key": secret, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const refused = (field: string) => ({
  status: 400,
  body: { type: "error", error: { type: "invalid_request_error", message: expect.stringContaining(`${field}: `) } },
});

describe("the Messages API refuses what Anthropic refuses, naming the field", () => {
  it("on /v1/messages: a system block other than text, tool_choice tool without a name, an unknown thinking type", async () => {
    const { secret } = await newWorkspace("1");
    const create = (extra: Record<string, unknown>) => post("/v1/messages", secret, { model: MODEL, max_tokens: 16, messages: hi, ...extra });
    expect(await create({ system: [{ type: "bogus" }] })).toMatchObject(refused("system.0.type"));
    expect(await create({ tools: [WEATHER], tool_choice: { type: "tool" } })).toMatchObject(refused("tool_choice.name"));
    expect(await create({ thinking: { type: "bogus" } })).toMatchObject(refused("thinking.type"));
    expect(await create({ thinking: { type: "enabled", budget_tokens: 100 } })).toMatchObject(refused("thinking.budget_tokens"));
    expect(await create({ messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "bogus" }] }] })).toMatchObject(refused("messages.0.content.1.type"));
  });

  it("through the official SDK: its BadRequestError, in Anthropic's shape", async () => {
    const { secret } = await newWorkspace("1");
    const err = await anthropic(secret)
      .messages.create({ model: MODEL, max_tokens: 16, messages: hi, system: [{ type: "bogus" } as never] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ status: 400, error: { type: "error", error: { type: "invalid_request_error", message: expect.stringContaining("system.0.type") } } });
  });

  it("on /v1/messages/count_tokens: an unknown content block, a bogus system block, a custom tool's bad name", async () => {
    const { secret } = await newWorkspace("1");
    const count = (extra: Record<string, unknown>) => post("/v1/messages/count_tokens", secret, { model: MODEL, messages: hi, ...extra });
    expect(await count({ messages: [{ role: "user", content: [{ type: "bogus", text: "hi" }] }] })).toMatchObject(refused("messages.0.content.0.type"));
    expect(await count({ system: [{ type: "text", text: "ok" }, { type: "image" }] })).toMatchObject(refused("system.1.type"));
    expect(await count({ tools: [{ ...WEATHER, name: "bad name!" }] })).toMatchObject(refused("tools.0.name"));
    const err = await anthropic(secret)
      .messages.countTokens({ model: MODEL, messages: hi, tools: [{ ...WEATHER, name: "bad name!" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
  });
});

describe("the Messages API still takes valid requests a node cannot fully use (dropped in translation)", () => {
  it("a document block, a search_result block, adaptive thinking, the web_search server tool, an MCP toolset", async () => {
    const { secret } = await newWorkspace("1");
    const request = {
      model: MODEL,
      max_tokens: 32,
      thinking: { type: "adaptive" as const },
      tools: [WEATHER, { type: "web_search_20250305" as const, name: "web_search" as const, max_uses: 3 }],
      tool_choice: { type: "tool" as const, name: "get_weather" },
      messages: [
        {
          role: "user" as const,
          content: [
            { type: "document" as const, source: { type: "text" as const, media_type: "text/plain" as const, data: "The handbook." }, title: "Handbook" },
            { type: "search_result" as const, source: "https://example.test/a", title: "A", content: [{ type: "text" as const, text: "Result A" }] },
            { type: "text" as const, text: "Summarise these." },
          ],
        },
      ],
    };
    const message = await anthropic(secret).messages.create(request);
    expect(message.type).toBe("message");
    const counted = await anthropic(secret).messages.countTokens({ ...request, thinking: { type: "enabled", budget_tokens: 1024 } });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const mcp = await post("/v1/messages?beta=true", secret, {
      model: MODEL,
      max_tokens: 16,
      mcp_servers: [{ type: "url", url: "https://mcp.example.test/sse", name: "docs" }],
      tools: [{ type: "mcp_toolset", mcp_server_name: "docs" }],
      messages: hi,
    });
    expect(mcp.status).toBe(200);
  });
});
