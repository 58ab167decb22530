// The comparison behind scripts/check-openai-schema.ts, on the gateway's real document and a small
// made-up document standing for OpenAI's: each kind of difference is found where it is, named
// after the other document's schema, and nothing is reported where the gateway keeps its promise.
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../server/contract/openapi";
import { operations } from "../../server/contract";
import { compareDocuments, type Doc } from "../../scripts/lib/openapi-compare";

const ours = structuredClone(openApiDocument(operations)) as unknown as Doc;
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });

/** A document of the other party: paths without the /v1 prefix, which its server URL carries. */
const theirs: Doc = {
  servers: [{ url: "https://api.example.test/v1" }],
  paths: {
    "/responses/{response_id}": { get: { responses: { 200: json({ $ref: "#/components/schemas/Reply" }) } } },
    "/images/generations": {
      post: {
        requestBody: json({
          type: "object",
          required: ["prompt"],
          properties: { prompt: { type: "string" }, n: { anyOf: [{ type: "integer" }, { type: "null" }] }, size: { type: "array" } },
        }),
        responses: { 200: json({ type: "object", required: ["created"], properties: { created: { type: "integer" } } }) },
      },
    },
    "/videos": { get: { responses: { 200: json({ $ref: "#/components/schemas/VideoList" }) } } },
    "/not-ours": { get: { responses: { 200: json({ type: "object" }) } } },
  },
  components: {
    schemas: {
      Reply: {
        allOf: [
          { type: "object", properties: { id: { type: "integer" }, metadata: { anyOf: [{ type: "object", additionalProperties: { type: "string" } }, { type: "null" }] } } },
          {
            type: "object",
            required: ["id", "object", "usage", "brand_new"],
            properties: {
              object: { type: "string", enum: ["reply"] },
              status: { type: "string", enum: ["completed", "failed"] },
              brand_new: { type: "string" },
              usage: { $ref: "#/components/schemas/Usage" },
              user: { type: "string" },
            },
          },
        ],
      },
      Usage: {
        type: "object",
        required: ["input_tokens", "input_tokens_details"],
        properties: {
          input_tokens: { type: "integer" },
          input_tokens_details: { type: "object", required: ["cached_tokens", "other_tokens"], properties: { cached_tokens: { type: "integer" }, other_tokens: { type: "integer" } } },
        },
      },
      VideoList: {
        type: "object",
        required: ["data"],
        properties: { data: { type: "array", items: { $ref: "#/components/schemas/Video" } } },
      },
      Video: {
        type: "object",
        required: ["id", "progress"],
        properties: { id: { type: "string" }, progress: { type: "integer" }, seconds: { type: "string" } },
      },
      ErrorResponse: {
        type: "object",
        required: ["error"],
        properties: {
          error: {
            type: "object",
            required: ["code", "message", "param", "type"],
            properties: { code: { anyOf: [{ type: "string" }, { type: "null" }] }, message: { type: "string" }, param: { anyOf: [{ type: "string" }, { type: "null" }] }, type: { type: "string" } },
          },
        },
      },
    },
  },
};

const { matched, findings } = compareDocuments(ours, theirs);
const differences = findings.filter((f) => !f.informative).map((f) => `${f.kind} ${f.at}`);

describe("comparing the gateway's OpenAPI document with OpenAI's", () => {
  it("matches operations by method and path, under the other document's server path", () => {
    expect(matched).toEqual(["GET /v1/responses/{id}", "POST /v1/images/generations", "GET /v1/videos", "the error body (Error, OpenAI's ErrorResponse)"]);
  });

  it("finds each kind of difference, named after the other document's schema", () => {
    expect(differences.sort()).toEqual(
      [
        "type Reply.id", // ours a string
        "missing Reply.brand_new",
        "optional Reply.usage", // ours leaves it out until a response finished
        "enum Reply.object", // ours "response"
        "enum Reply.status", // ours has more states
        "missing Reply.usage.input_tokens_details.other_tokens",
        "type Video.progress", // array items start a path of their own: ours a number
        "type Video.seconds", // ours an integer
        "request-type POST /v1/images/generations request (application/json).size", // ours a string
      ].sort(),
    );
  });

  it("reports nothing where the gateway keeps the promise", () => {
    for (const kept of ["Reply.metadata", "Reply.user", "Reply.usage.input_tokens", "Reply.usage.input_tokens_details.cached_tokens", "ErrorResponse.error", "n)", "prompt"]) {
      expect(differences.filter((d) => d.endsWith(kept)), kept).toEqual([]);
    }
  });

  it("tells fields only the gateway has apart, as information", () => {
    const extra = findings.filter((f) => f.informative).map((f) => f.at);
    expect(extra).toEqual(expect.arrayContaining(["Reply.model", "Video.cost"]));
    expect(findings.find((f) => f.at === "Video.cost")!.where).toEqual(new Set(["GET /v1/videos"]));
  });
});
