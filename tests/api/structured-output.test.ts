// Structured outputs and tool calls of the built-in chat model through the gateway: the catalog
// says it supports them, json_schema answers (chat completions' response_format, the responses
// API's text.format) are JSON valid against the schema (checked with ajv), the official SDK's
// zod helpers parse them, and tool-call arguments fit the tool's parameters.
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { zodFunction, zodResponseFormat, zodTextFormat } from "openai/helpers/zod";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { randomBase62 } from "../../server/kernel/ids";
import { importModelCards } from "../../server/routing/catalog/import-catalog";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { chatModelCard } from "../fakes/chat-model-card";
import { newWorkspace, until } from "../helpers";

const MODEL = "local-chat-sim";
const ajv = addFormats(new Ajv2020({ strict: false }));

const ORDER_SCHEMA = {
  type: "object",
  $defs: { line: { type: "object", properties: { sku: { type: "string", minLength: 4 }, quantity: { type: "integer", minimum: 1, maximum: 9 }, price: { type: "number", exclusiveMinimum: 0 } }, required: ["sku", "quantity", "price"], additionalProperties: false } },
  properties: {
    summary: { type: "string" },
    status: { type: "string", enum: ["open", "shipped", "closed"] },
    express: { type: "boolean" },
    lines: { type: "array", items: { $ref: "#/$defs/line" }, minItems: 2 },
    customer: { type: "object", properties: { email: { type: "string", format: "email" }, vip: { anyOf: [{ type: "boolean" }, { type: "null" }] } }, required: ["email", "vip"], additionalProperties: false },
    note: { type: ["string", "null"] },
  },
  required: ["summary", "status", "express", "lines", "customer", "note"],
  additionalProperties: false,
} as const;

function expectConforms(json: string | null | undefined, schema: object): Record<string, unknown> {
  const value = JSON.parse(json ?? "null") as Record<string, unknown>;
  const validate = ajv.compile(schema);
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
  return value;
}

const Weather = z.object({
  city: z.string(),
  unit: z.enum(["celsius", "fahrenheit"]),
  days: z.array(z.object({ date: z.iso.date(), high: z.number(), low: z.number(), rain: z.boolean() })).min(1),
  alert: z.string().nullable(),
});

describe("structured outputs on the built-in chat model", () => {
  it("is listed as supporting structured output", async () => {
    const { openai } = await newWorkspace("1");
    const model = await openai.models.retrieve(MODEL);
    expect((model as unknown as { capabilities: Record<string, unknown> }).capabilities).toMatchObject({ structured_output: true, json_mode: true, tools: true });
  });

  it("a catalog entry takes the capabilities of its node's card when the card is imported again, keeping its prices", async () => {
    const { openai } = await newWorkspace("1");
    const id = `caps-${randomBase62(8)}`;
    const old = chatModelCard(id); // structured_output: false
    // served by the built-in node's chat model, so it is a catalog entry like any other while it exists
    const local = await db.node.findUniqueOrThrow({ where: { name: "local" } });
    await db.model.create({ data: { ...cardToRow(old), nodes: { create: { nodeId: local.id, upstreamModel: MODEL } } } });
    try {
      const card = { ...old, capabilities: { ...old.capabilities, structured_output: true }, pricing: { ...old.pricing, input_per_1m: "9" } };
      expect(await db.$transaction((tx) => importModelCards(tx, [card]))).toEqual([]);
      const seen = await until(() => openai.models.retrieve(id) as Promise<unknown>, (m) => (m as { capabilities: { structured_output: boolean } }).capabilities.structured_output, 5000);
      expect(seen.value).toMatchObject({ capabilities: { structured_output: true, tools: true }, pricing: { input_per_1m: old.pricing.input_per_1m } });
    } finally {
      await db.$transaction(async (tx) => {
        await tx.model.delete({ where: { id } });
        await notify(tx, Channel.catalogChanged);
      });
    }
  });

  it("answers chat completions with JSON valid against response_format's json_schema, streamed or not", async () => {
    const { openai } = await newWorkspace("1");
    const response_format = { type: "json_schema" as const, json_schema: { name: "order", strict: true, schema: ORDER_SCHEMA as unknown as Record<string, unknown> } };
    const messages = [{ role: "user" as const, content: "Summarise my order as JSON." }];
    const r = await openai.chat.completions.create({ model: MODEL, messages, response_format });
    expect(r.choices[0]!.finish_reason).toBe("stop");
    const order = expectConforms(r.choices[0]!.message.content, ORDER_SCHEMA);
    expect((order.lines as unknown[]).length).toBeGreaterThanOrEqual(2);

    let streamed = "";
    for await (const chunk of await openai.chat.completions.create({ model: MODEL, messages, response_format, stream: true })) streamed += chunk.choices[0]?.delta.content ?? "";
    expect(JSON.parse(streamed)).toEqual(order);
  });

  it("works with the SDK's chat.completions.parse and a zod schema", async () => {
    const { openai } = await newWorkspace("1");
    const r = await openai.chat.completions.parse({
      model: MODEL,
      messages: [{ role: "user", content: "What is the weather in Lisbon this week?" }],
      response_format: zodResponseFormat(Weather, "weather"),
    });
    const parsed = r.choices[0]!.message.parsed;
    expect(Weather.parse(parsed)).toEqual(parsed);
    expect(parsed!.days.length).toBeGreaterThanOrEqual(1);
  });

  it("answers the responses API's text.format json_schema, and the SDK's responses.parse", async () => {
    const { openai } = await newWorkspace("1");
    const r = await openai.responses.create({
      model: MODEL,
      input: "Summarise my order as JSON.",
      text: { format: { type: "json_schema", name: "order", strict: true, schema: ORDER_SCHEMA as unknown as Record<string, unknown> } },
    });
    expect(r.text?.format).toMatchObject({ type: "json_schema", name: "order" });
    expectConforms(r.output_text, ORDER_SCHEMA);

    const parsed = await openai.responses.parse({ model: MODEL, input: "Weather in Oslo?", text: { format: zodTextFormat(Weather, "weather") } });
    expect(Weather.parse(parsed.output_parsed)).toEqual(parsed.output_parsed);
  });

  it("calls tools with arguments that fit their parameters, and the SDK parses zod tools", async () => {
    const { openai } = await newWorkspace("1");
    const parameters = { type: "object", properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, maximum: 7 }, unit: { type: "string", enum: ["c", "f"] } }, required: ["city", "days", "unit"], additionalProperties: false };
    const r = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Use the forecast tool for Paris." }],
      tools: [{ type: "function", function: { name: "forecast", parameters } }],
    });
    expect(r.choices[0]!.finish_reason).toBe("tool_calls");
    const call = r.choices[0]!.message.tool_calls![0]!;
    if (call.type !== "function") throw new Error("expected a function call");
    expect(call.function.name).toBe("forecast");
    expectConforms(call.function.arguments, parameters);

    const parsed = await openai.chat.completions.parse({
      model: MODEL,
      messages: [{ role: "user", content: "Get the weather report." }],
      tools: [zodFunction({ name: "report", parameters: Weather })],
      tool_choice: "required",
    });
    const tool = parsed.choices[0]!.message.tool_calls!.at(0)!;
    if (tool.type !== "function") throw new Error("expected a function call");
    expect(tool.function.name).toBe("report");
    expect(Weather.parse(tool.function.parsed_arguments)).toEqual(tool.function.parsed_arguments);
  });
});
