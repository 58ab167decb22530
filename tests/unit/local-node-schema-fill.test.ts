// The built-in node's structured outputs: the value it makes for a JSON schema validates against
// that schema (checked with ajv), for hand-written schemas and for what zod emits through the
// official SDK's helper.
import Ajv2020 from "ajv/dist/2020";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { zodResponseFormat } from "openai/helpers/zod";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { seededRng } from "../../local-node/random";
import { fillValue } from "../../local-node/schema-fill";

const ajv = addFormats(new Ajv2020({ strict: false }));
const draft7 = addFormats(new Ajv({ strict: false }));

function instance(schema: Record<string, unknown>, seed = "x", text?: string): unknown {
  return fillValue(schema, seededRng(seed), schema, 0, "answer", text);
}

function expectValid(schema: Record<string, unknown>, validator = ajv): void {
  const validate = validator.compile(schema);
  for (const seed of ["a", "b", "c", "d"]) {
    const value = instance(schema, seed, "The quiet model carries a clear signal.");
    expect(validate(value), `${JSON.stringify(value)}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
}

describe("local node: values for JSON schemas", () => {
  it("fills objects, nested objects, arrays, enums, consts and scalars", () => {
    expectValid({
      type: "object",
      properties: {
        title: { type: "string" },
        count: { type: "integer", minimum: 3, maximum: 3 },
        ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
        even: { type: "integer", multipleOf: 2, minimum: 1 },
        done: { type: "boolean" },
        kind: { type: "string", enum: ["a", "b"] },
        fixed: { const: 7 },
        tags: { type: "array", items: { type: "string", minLength: 3, maxLength: 5 }, minItems: 2, maxItems: 3, uniqueItems: true },
        empty: { type: "array", items: { type: "string" }, maxItems: 0 },
        owner: { type: "object", properties: { email: { type: "string", format: "email" }, born: { type: "string", format: "date" } }, required: ["email", "born"], additionalProperties: false },
        id: { type: "string", format: "uuid" },
        maybe: { type: ["integer", "null"] },
      },
      required: ["title", "count", "ratio", "even", "done", "kind", "fixed", "tags", "empty", "owner", "id", "maybe"],
      additionalProperties: false,
    });
  });

  it("follows anyOf, oneOf, allOf, $ref to $defs and definitions, and recursive schemas", () => {
    expectValid({
      type: "object",
      $defs: { point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"], additionalProperties: false } },
      properties: {
        at: { $ref: "#/$defs/point" },
        either: { anyOf: [{ type: "null" }, { $ref: "#/$defs/point" }] },
        one: { oneOf: [{ type: "integer", minimum: 10 }, { type: "string" }] },
        both: { allOf: [{ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, { properties: { b: { type: "integer" } }, required: ["b"] }] },
      },
      required: ["at", "either", "one", "both"],
    });
    expectValid(
      { type: "object", definitions: { leaf: { type: "string", enum: ["x"] } }, properties: { leaf: { $ref: "#/definitions/leaf" } }, required: ["leaf"] },
      draft7,
    );
    const tree = {
      type: "object",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#" } }, parent: { anyOf: [{ $ref: "#" }, { type: "null" }] } },
      required: ["name", "children", "parent"],
      additionalProperties: false,
    };
    expectValid(tree);
  });

  it("puts the answer text in the first plain string property, or makes the whole answer of it", () => {
    const text = "The quiet model carries a clear signal.";
    const schema = { type: "object", properties: { mood: { type: "string", enum: ["ok"] }, answer: { type: "string" } }, required: ["mood", "answer"] };
    expect(instance(schema, "s", text)).toEqual({ mood: "ok", answer: text });
    expect(instance({ type: "string" }, "s", text)).toBe(text);
    expect(instance({ type: "object", properties: {}, additionalProperties: false }, "s", text)).toEqual({});
    // the same schema and seed, the same value
    expect(instance(schema, "s", text)).toEqual(instance(schema, "s", text));
  });

  it("fills what zod emits through the SDK's zodResponseFormat", () => {
    const Step = z.object({ explanation: z.string(), output: z.string() });
    const schema = z.object({
      name: z.string(),
      age: z.number().int().positive(),
      score: z.number().min(0).max(1),
      email: z.email(),
      role: z.enum(["admin", "user"]),
      steps: z.array(Step).min(1),
      nickname: z.string().nullable(),
      address: z.object({ city: z.string(), zip: z.string().length(5) }),
      contact: z.union([z.object({ phone: z.string() }), z.object({ fax: z.string() })]),
      when: z.iso.datetime(),
    });
    const format = zodResponseFormat(schema, "person");
    const json = format.json_schema.schema as Record<string, unknown>;
    expectValid(json, json.$schema === "http://json-schema.org/draft-07/schema#" ? draft7 : ajv);
    for (const seed of ["a", "b"]) expect(schema.safeParse(instance(json, seed, "text")).success).toBe(true);
  });
});
