// The bedrock adapter against the stand-in, without the gateway: signed calls accepted, Converse
// requests and answers, the stream translated event by event, Claude over InvokeModel, the model
// list, and Bedrock's errors in the gateway's terms.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bedrockAdapter } from "../../server/providers/bedrock/chat";
import { bedrockSpec } from "../../server/providers/bedrock/spec";
import { SseData } from "../../server/providers/sse-data";
import type { UpstreamTarget } from "../../server/providers/http";
import { GatewayError } from "../../server/kernel/errors";
import { UpstreamFailure } from "../../server/providers/upstream-failure";
import { upstreamError } from "../../server/routing/nodes/router";
import { CONVERSE, KEYS, REASONING, REGION, SIGNATURE, startBedrockUpstream, type BedrockUpstream } from "../fakes/bedrock-upstream";

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let fake: BedrockUpstream;
let target: UpstreamTarget;
const NOVA = "amazon.nova-wiretest-v1:0";
const CLAUDE = "us.anthropic.claude-wiretest-v1:0";
const options = { maxOutputTokens: 4096 };

beforeAll(async () => {
  fake = await startBedrockUpstream();
  const auth = bedrockSpec.auth({ region: REGION }, null, KEYS);
  target = { baseUrl: fake.url, apiKey: null, wire: "bedrock", headers: auth.headers, sign: auth.sign, cloud: { region: REGION } };
});
afterAll(() => fake.close());

/** A stream's chunk payloads, as the relay reads them. */
async function chunks(body: Any): Promise<Any[]> {
  const opened = await bedrockAdapter.openStream(target, body, options);
  const sse = new SseData();
  const out: string[] = [];
  for await (const chunk of opened.response.body) for (const data of sse.push(chunk as Buffer)) out.push(...opened.translator!.push(data));
  out.push(...opened.translator!.end());
  return out.map((p) => JSON.parse(p));
}

describe("the bedrock adapter", () => {
  it("the endpoint is the region's runtime; no region is a 400 naming it", () => {
    expect(bedrockSpec.endpoint({ region: "eu-west-3" })).toBe("https://bedrock-runtime.eu-west-3.amazonaws.com");
    expect(() => bedrockSpec.endpoint({})).toThrow(GatewayError);
  });

  it("lists on-demand models and inference profiles as unpriced cards, chat and embedding apart, image models left out", async () => {
    const cards = await bedrockSpec.listModels(target, 5000);
    expect(cards.map((c) => [c.id, c.type])).toEqual([
      [NOVA, "chat"],
      ["amazon.titan-embed-text-v2:0", "embedding"],
      [CLAUDE, "chat"],
      ["us.amazon.nova-wiretest-v1:0", "chat"],
    ]);
  });

  it("a Converse chat: the request, the answer with reasoning and its signature", async () => {
    fake.converse = CONVERSE.reasoning;
    const c = (await bedrockAdapter.complete(target, { model: NOVA, messages: [{ role: "system", content: "Be kind." }, { role: "user", content: "hi" }], max_tokens: 50, stop: ["x"] }, options)) as Any;
    expect(fake.last!.path).toBe("/model/amazon.nova-wiretest-v1%3A0/converse");
    expect(fake.last!.body).toEqual({ system: [{ text: "Be kind." }], messages: [{ role: "user", content: [{ text: "hi" }] }], inferenceConfig: { maxTokens: 50, stopSequences: ["x"] } });
    expect(c.choices[0].message).toMatchObject({ content: "Hello!", reasoning_content: REASONING, thinking_blocks: [{ type: "thinking", thinking: REASONING, signature: SIGNATURE }] });
  });

  it("a ConverseStream: parallel tool calls put together, the finish reason, then the usage chunk with cache tokens", async () => {
    fake.converse = CONVERSE.parallel;
    const out = await chunks({ model: NOVA, messages: [{ role: "user", content: "Paris?" }], tools: [{ type: "function", function: { name: "get_weather" } }] });
    const calls: Any[] = [];
    for (const c of out) for (const d of c.choices[0]?.delta.tool_calls ?? []) (calls[d.index] ??= { id: d.id, name: d.function.name, arguments: "" }).arguments += d.function.arguments ?? "";
    expect(calls.map((c) => [c.id, c.name, JSON.parse(c.arguments)])).toEqual([
      ["tooluse_Pa1", "get_weather", { city: "Paris" }],
      ["tooluse_Pa2", "get_time", { timezone: "Europe/Paris", format: { hours: 24 } }],
    ]);
    expect(out.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe("tool_calls");
    fake.converse = CONVERSE.cached;
    const usage = (await chunks({ model: NOVA, messages: [{ role: "user", content: "doc?" }] })).at(-1)!.usage;
    expect(usage).toEqual({ prompt_tokens: 4607, completion_tokens: 9, total_tokens: 4616, prompt_tokens_details: { cached_tokens: 3400, cache_write_tokens: 1200 } });
  });

  it("Claude over InvokeModel: Anthropic's body with Bedrock's version, no model; its stream through Anthropic's translator", async () => {
    const c = (await bedrockAdapter.complete(target, { model: CLAUDE, messages: [{ role: "user", content: "hi" }] }, options)) as Any;
    expect(fake.last!.path).toBe("/model/us.anthropic.claude-wiretest-v1%3A0/invoke");
    expect(fake.last!.body).toEqual({ anthropic_version: "bedrock-2023-05-31", max_tokens: 4096, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    expect(c.choices[0].message.content).toBe("Hello! How can I help you today?");
    const out = await chunks({ model: CLAUDE, messages: [{ role: "user", content: "hi" }] });
    expect(out.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Hello! How can I help you today?");
    expect(out.at(-1)!.usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 12 });
  });

  it("an exception frame mid-stream is an error payload with Bedrock's words", async () => {
    fake.mode = "stream-exception";
    const out = await chunks({ model: NOVA, messages: [{ role: "user", content: "hi" }] });
    fake.mode = "ok";
    expect(out.at(-1)).toEqual({ error: { message: expect.stringContaining("modelStreamErrorException") } });
  });

  it("throttling is a 429 with a Retry-After; a context overflow the 400 context_length_exceeded; a wrong secret an operator's 502 without it", async () => {
    fake.mode = "throttled";
    const throttled = await bedrockAdapter.complete(target, { model: NOVA, messages: [] }, options).catch((e) => e);
    expect(throttled).toMatchObject({ status: 429, retryAfter: "2" });
    expect(throttled).toBeInstanceOf(UpstreamFailure);
    fake.mode = "overflow";
    const overflow = await bedrockAdapter.complete(target, { model: NOVA, messages: [] }, options).catch((e) => e);
    expect(overflow).toMatchObject({ status: 400, body: { error: { code: "context_length_exceeded" } } });
    fake.mode = "ok";
    const auth = bedrockSpec.auth({ region: REGION }, null, { ...KEYS, secret_access_key: "wrong-secret-value" });
    const refused = await bedrockAdapter.complete({ ...target, sign: auth.sign }, { model: NOVA, messages: [] }, options).catch((e) => e);
    // A node failure (another node may serve the call), answered by the router as the operator's 502.
    expect(refused).toBeInstanceOf(UpstreamFailure);
    expect(refused).toMatchObject({ kind: "status", status: 403, retryable: true });
    const answered = upstreamError(refused);
    expect(answered).toMatchObject({ status: 502, code: "upstream_auth_failed" });
    expect(answered.message).toContain("secret access key");
    expect(answered.message).not.toContain("wrong-secret-value");
  });
});
