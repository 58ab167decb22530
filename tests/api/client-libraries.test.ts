// The client libraries people use, pointed at the gateway's built-in models: the AI SDK (over
// chat completions and over the responses API) and LangChain. Each call asserts what the library
// hands back: text, a streamed text, an object valid for the zod schema, a named tool call with
// parsed arguments, embeddings of the model's dimensions.
import { createOpenAI } from "@ai-sdk/openai";
import { OpenAIEmbeddings, ChatOpenAI } from "@langchain/openai";
import { tool as langchainTool } from "@langchain/core/tools";
import { embed, embedMany, generateObject, generateText, isStepCount, streamText, tool, type LanguageModel } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { baseUrl, newWorkspace } from "../helpers";

const CHAT = "local-chat-sim";
const EMBED = "local-embed-ngram";
/** local-embed-ngram's vectors (docs/LOCAL-NODE.md). */
const EMBED_DIMENSIONS = 512;

const Recipe = z.object({
  title: z.string(),
  servings: z.number().int().min(1).max(12),
  vegetarian: z.boolean(),
  ingredients: z.array(z.object({ name: z.string(), grams: z.number().positive() })).min(1),
  difficulty: z.enum(["easy", "medium", "hard"]),
});

const weatherInput = z.object({ city: z.string(), unit: z.enum(["celsius", "fahrenheit"]) });

async function aiSdk() {
  const { secret, openai } = await newWorkspace("5");
  return { provider: createOpenAI({ baseURL: `${baseUrl()}/v1`, apiKey: secret }), openai };
}

const apis: [string, (p: ReturnType<typeof createOpenAI>) => LanguageModel][] = [
  ["chat completions (openai.chat)", (p) => p.chat(CHAT)],
  ["responses (openai.responses)", (p) => p.responses(CHAT)],
  ["responses (openai(model), the default)", (p) => p(CHAT)],
];

describe.each(apis)("AI SDK over %s", (_name, modelOf) => {
  it("generateText answers text and reports usage", async () => {
    const { provider } = await aiSdk();
    const r = await generateText({ model: modelOf(provider), system: "Be brief.", prompt: "Say something about rivers." });
    expect(r.text.length).toBeGreaterThan(0);
    expect(r.finishReason).toBe("stop");
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(r.usage.outputTokens).toBeGreaterThan(0);
  });

  it("streamText streams deltas that make the whole text", async () => {
    const { provider } = await aiSdk();
    const r = streamText({ model: modelOf(provider), prompt: "Stream a few sentences." });
    let streamed = "";
    for await (const delta of r.textStream) streamed += delta;
    expect(streamed.length).toBeGreaterThan(0);
    expect(await r.text).toBe(streamed);
    expect(await r.finishReason).toBe("stop");
  });

  it("generateObject gives an object valid for the zod schema", async () => {
    const { provider } = await aiSdk();
    const r = await generateObject({ model: modelOf(provider), schema: Recipe, prompt: "A recipe for soup." });
    expect(Recipe.parse(r.object)).toEqual(r.object);
  });

  it("calls a tool with parsed arguments, runs it, and answers after its result", async () => {
    const { provider } = await aiSdk();
    const seen: unknown[] = [];
    const weather = tool({
      description: "The weather in a city",
      inputSchema: weatherInput,
      execute: async (input) => {
        seen.push(input);
        return { temperature: 21 };
      },
    });
    const r = await generateText({ model: modelOf(provider), tools: { weather }, prompt: "Use the weather tool for Paris.", stopWhen: isStepCount(2) });
    const first = r.steps[0]!;
    expect(first.finishReason).toBe("tool-calls");
    expect(first.toolCalls).toHaveLength(1);
    expect(first.toolCalls[0]!.toolName).toBe("weather");
    expect(weatherInput.parse(first.toolCalls[0]!.input)).toEqual(first.toolCalls[0]!.input);
    expect(seen).toEqual([first.toolCalls[0]!.input]);
    expect(first.toolResults[0]!.output).toEqual({ temperature: 21 });
    // second step: the model read the tool's result and answered in text
    expect(r.steps).toHaveLength(2);
    expect(r.text.length).toBeGreaterThan(0);
  });
});

describe("AI SDK embeddings", () => {
  it("embed and embedMany give vectors of the model's dimensions, as the official SDK does", async () => {
    const { provider, openai } = await aiSdk();
    const one = await embed({ model: provider.embedding(EMBED), value: "a quiet river" });
    expect(one.embedding).toHaveLength(EMBED_DIMENSIONS);
    const direct = await openai.embeddings.create({ model: EMBED, input: "a quiet river" });
    expect(direct.data[0]!.embedding).toHaveLength(EMBED_DIMENSIONS);
    one.embedding.forEach((v, i) => expect(v).toBeCloseTo(direct.data[0]!.embedding[i]!, 6));
    const many = await embedMany({ model: provider.embedding(EMBED), values: ["one", "two", "three"] });
    expect(many.embeddings.map((e) => e.length)).toEqual([EMBED_DIMENSIONS, EMBED_DIMENSIONS, EMBED_DIMENSIONS]);
  });
});

describe("LangChain", () => {
  async function chat(fields: Record<string, unknown> = {}) {
    const { secret } = await newWorkspace("5");
    return new ChatOpenAI({ model: CHAT, apiKey: secret, configuration: { baseURL: `${baseUrl()}/v1` }, maxRetries: 0, ...fields });
  }

  it("ChatOpenAI invoke answers text with usage", async () => {
    const llm = await chat();
    const message = await llm.invoke([
      ["system", "Be brief."],
      ["human", "Tell me about bridges."],
    ]);
    expect(typeof message.content).toBe("string");
    expect((message.content as string).length).toBeGreaterThan(0);
    expect(message.usage_metadata?.input_tokens).toBeGreaterThan(0);
    expect(message.usage_metadata?.output_tokens).toBeGreaterThan(0);
  });

  it("ChatOpenAI stream gives chunks that make the text", async () => {
    const llm = await chat();
    let text = "";
    let chunks = 0;
    for await (const chunk of await llm.stream("Stream a few sentences.")) {
      text += chunk.content as string;
      chunks++;
    }
    expect(chunks).toBeGreaterThan(2);
    expect(text.length).toBeGreaterThan(0);
  });

  it("withStructuredOutput (its default method) gives an object valid for the zod schema", async () => {
    const llm = await chat();
    const recipe = await llm.withStructuredOutput(Recipe).invoke("A recipe for bread.");
    expect(Recipe.parse(recipe)).toEqual(recipe);
    // and with function calling
    const viaTool = await llm.withStructuredOutput(Recipe, { method: "functionCalling" }).invoke("A recipe for bread.");
    expect(Recipe.parse(viaTool)).toEqual(viaTool);
  });

  it("bindTools: the model calls the tool, named, with parsed arguments", async () => {
    const llm = await chat();
    const weather = langchainTool(async (input: z.infer<typeof weatherInput>) => `It is 21 degrees in ${input.city}.`, {
      name: "weather",
      description: "The weather in a city",
      schema: weatherInput,
    });
    const message = await llm.bindTools([weather]).invoke("Use the weather tool for Paris.");
    expect(message.tool_calls).toHaveLength(1);
    const call = message.tool_calls![0]!;
    expect(call.name).toBe("weather");
    expect(weatherInput.parse(call.args)).toEqual(call.args);
    expect(call.id).toEqual(expect.any(String));
  });

  it("OpenAIEmbeddings embeds queries and documents with the model's dimensions", async () => {
    const { secret } = await newWorkspace("5");
    const embeddings = new OpenAIEmbeddings({ model: EMBED, apiKey: secret, configuration: { baseURL: `${baseUrl()}/v1` }, maxRetries: 0 });
    const query = await embeddings.embedQuery("a quiet river");
    expect(query).toHaveLength(EMBED_DIMENSIONS);
    const docs = await embeddings.embedDocuments(["one", "two"]);
    expect(docs.map((d) => d.length)).toEqual([EMBED_DIMENSIONS, EMBED_DIMENSIONS]);
  });
});
