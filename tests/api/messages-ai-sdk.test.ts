// The AI SDK's Anthropic provider (@ai-sdk/anthropic) pointed at the gateway's /v1/messages, on
// the built-in node (translated to a chat completion and back): text, a stream, and a tool call
// answered after its result, each billed through the ledger.
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText, isStepCount, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { db } from "../../server/infra/db/client";
import { baseUrl, newWorkspace } from "../helpers";

const CHAT = "local-chat-sim";
const weatherInput = z.object({ city: z.string(), unit: z.enum(["celsius", "fahrenheit"]) });

async function provider() {
  const { secret, workspace } = await newWorkspace("5");
  return { anthropic: createAnthropic({ baseURL: `${baseUrl()}/v1`, apiKey: secret }), workspace };
}

const events = (workspaceId: string) => db.usageEvent.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" } });

describe("AI SDK over Anthropic's Messages API (@ai-sdk/anthropic)", () => {
  it("generateText answers text with usage, billed once as a /v1/messages call", async () => {
    const { anthropic, workspace } = await provider();
    const r = await generateText({ model: anthropic(CHAT), system: "Be brief.", prompt: "Say something about rivers.", maxRetries: 0 });
    expect(r.text.length).toBeGreaterThan(0);
    expect(r.finishReason).toBe("stop");
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(r.usage.outputTokens).toBeGreaterThan(0);
    const billed = await events(workspace.id);
    expect(billed).toHaveLength(1);
    expect(billed[0]).toMatchObject({ endpoint: "/v1/messages", modelId: CHAT, outputTokens: r.usage.outputTokens });
  });

  it("streamText streams deltas that make the whole text", async () => {
    const { anthropic } = await provider();
    const r = streamText({ model: anthropic(CHAT), prompt: "Stream a few sentences.", maxRetries: 0 });
    let streamed = "";
    for await (const delta of r.textStream) streamed += delta;
    expect(streamed.length).toBeGreaterThan(0);
    expect(await r.text).toBe(streamed);
    expect(await r.finishReason).toBe("stop");
  });

  it("calls a tool with parsed arguments, runs it, and answers after its result", async () => {
    const { anthropic, workspace } = await provider();
    const seen: unknown[] = [];
    const weather = tool({
      description: "The weather in a city",
      inputSchema: weatherInput,
      execute: async (input) => {
        seen.push(input);
        return { temperature: 21 };
      },
    });
    const r = await generateText({ model: anthropic(CHAT), tools: { weather }, prompt: "Use the weather tool for Paris.", stopWhen: isStepCount(2), maxRetries: 0 });
    const first = r.steps[0]!;
    expect(first.finishReason).toBe("tool-calls");
    expect(first.toolCalls).toHaveLength(1);
    expect(first.toolCalls[0]!.toolName).toBe("weather");
    expect(weatherInput.parse(first.toolCalls[0]!.input)).toEqual(first.toolCalls[0]!.input);
    expect(seen).toEqual([first.toolCalls[0]!.input]);
    expect(r.steps).toHaveLength(2);
    expect(r.text.length).toBeGreaterThan(0);
    expect(await events(workspace.id)).toHaveLength(2);
  });
});
