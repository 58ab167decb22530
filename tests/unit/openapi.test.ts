// The OpenAPI document built from the contract: valid OpenAPI 3.1, every declared path in it
// (with its inputs and answers), the error object,
// the security scheme, and schemas a JSON Schema 2020-12 validator compiles.
import SwaggerParser from "@apidevtools/swagger-parser";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { operations } from "../../server/contract";
import { openApiDocument } from "../../server/contract/openapi";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const doc = openApiDocument(operations) as Json;
const opOf = (method: string, path: string): Json => doc.paths[path]?.[method.toLowerCase()];
/** A response, followed through its $ref to components.responses. */
const responseOf = (op: Json, status: number | string): Json | undefined => {
  const r = op.responses[String(status)];
  return r?.$ref ? doc.components.responses[r.$ref.split("/").pop()] : r;
};
const paramsOf = (op: Json, where: string) => (op.parameters ?? []).filter((p: Json) => p.in === where).map((p: Json) => p.name);

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toBe("3.1.0");
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it("is built once", () => {
    expect(openApiDocument(operations)).toBe(openApiDocument(operations));
  });

  it("has every served operation, with its answers and the errors it can give", () => {
    for (const op of operations) {
      const documented = opOf(op.method, op.path);
      expect(documented, `${op.method} ${op.path}`).toBeDefined();
      expect(documented.operationId).toBe(op.id);
      const ok = responseOf(documented, op.produces.kind === "json" ? (op.produces.status ?? 200) : 200)!;
      expect(ok, `${op.id} success`).toBeDefined();
      if (op.output) expect(ok.content["application/json"].schema.$ref, op.id).toMatch(/^#\/components\/schemas\//);
      if (op.produces.kind === "json_or_sse") expect(Object.keys(ok.content)).toEqual(["application/json", "text/event-stream"]);
      if (op.produces.kind === "binary") {
        for (const type of op.produces.mediaTypes) expect(ok.content[type], `${op.id} ${type}`).toBeDefined();
        expect(!!ok.content["application/json"]).toBe(!!op.produces.jsonToo);
      }
      expect(documented.responses["500"], op.id).toBeDefined();
      if (op.tier === "none") expect(documented.security).toEqual([]);
      else {
        expect(documented.security, op.id).toBeUndefined(); // the document's default: the API key
        expect(documented.responses["401"], op.id).toBeDefined();
      }
      for (const [status, response] of Object.entries(documented.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        // The Messages operations answer errors in Anthropic's shape; the others share OpenAI's error responses.
        if (op.dialect === "anthropic") expect(response.content["application/json"].schema.$ref, `${op.id} ${status}`).toBe("#/components/schemas/AnthropicError");
        else expect(response.$ref, `${op.id} ${status}`).toMatch(/^#\/components\/responses\//);
      }
    }
    expect(operations.map((op) => op.path)).toContain("/openapi.json");
  });

  it("lists the statuses each kind of operation answers", () => {
    const statuses = (method: string, path: string) => Object.keys(opOf(method, path).responses).map(Number);
    expect(statuses("POST", "/v1/chat/completions")).toEqual([200, 400, 401, 402, 403, 404, 413, 422, 429, 500, 502, 503, 504]);
    // Anthropic's overloaded_error is a 529 where OpenAI's shape answers 503.
    expect(statuses("POST", "/v1/messages")).toEqual([200, 400, 401, 402, 403, 404, 413, 422, 429, 500, 502, 504, 529]);
    expect(statuses("GET", "/v1/videos/{id}/content")).toEqual([200, 206, 400, 401, 403, 404, 409, 416, 500]);
    expect(statuses("DELETE", "/v1/videos/{id}")).toEqual([200, 400, 401, 403, 404, 409, 500]);
    expect(statuses("POST", "/v1/videos")).toEqual([200, 400, 401, 402, 403, 404, 413, 429, 500]);
    expect(statuses("DELETE", "/v1/models/{id}")).toEqual([200, 400, 401, 403, 404, 500]);
    expect(statuses("GET", "/v1/images/files/{name}")).toEqual([200, 400, 403, 404, 500]);
    // Any call with a credential: two credentials (400), a key without the permission (403).
    expect(statuses("GET", "/v1/models")).toEqual([200, 400, 401, 403, 500]);
    expect(statuses("GET", "/health")).toEqual([200, 500]);
    expect(doc.components.responses.MethodNotAllowed.headers.Allow).toBeDefined();
  });

  it("has the error object of the API reference (part 2.1)", () => {
    const error = doc.components.schemas.Error;
    expect(error.required).toEqual(["error"]);
    expect(error.properties.error.required).toEqual(["code", "message", "param", "type"]);
    expect(error.properties.error.properties.param.type).toEqual(["string", "null"]);
  });

  it("has the bearer API key as its security scheme, and no credential on health and signed image links", () => {
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "sk-gw-... or JWT" });
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    expect(opOf("GET", "/health").security).toEqual([]);
    expect(opOf("GET", "/v1/images/files/{name}").security).toEqual([]);
    expect(opOf("GET", "/openapi.json").security).toEqual([]);
  });

  it("documents requests: JSON and multipart bodies, query, path and header parameters", () => {
    const chat = opOf("POST", "/v1/chat/completions").requestBody.content["application/json"].schema;
    expect(chat.required).toEqual(["model", "messages"]);

    // Fields the gateway sets itself are not body fields.
    const generation = opOf("POST", "/v1/images/generations").requestBody.content["application/json"].schema;
    expect(generation.properties.origin).toBeUndefined();
    expect(generation.required).toEqual(["prompt"]);
    const edit = opOf("POST", "/v1/images/edits").requestBody.content["multipart/form-data"].schema;
    expect(edit.properties.origin).toBeUndefined();
    expect(edit.properties.image).toEqual({ type: "string", format: "binary" });
    expect(edit.properties.mask).toEqual({ type: "string", format: "binary" });
    expect(edit.required).toEqual(["image", "prompt"]);

    const transcription = opOf("POST", "/v1/audio/transcriptions").requestBody.content["multipart/form-data"].schema;
    expect(transcription.properties.file).toEqual({ type: "string", format: "binary" });
    expect(transcription.properties.temperature.type).toBe("number"); // a form field, not "number or null"

    // Videos take JSON or a form (whose input_reference is a file).
    const video = opOf("POST", "/v1/videos").requestBody.content;
    expect(Object.keys(video)).toEqual(["application/json", "multipart/form-data"]);
    expect(video["multipart/form-data"].schema.properties.input_reference).toEqual({ type: "string", format: "binary" });

    const content = opOf("GET", "/v1/videos/{id}/content");
    expect(paramsOf(content, "path")).toEqual(["id"]);
    expect(paramsOf(content, "query")).toEqual(["variant"]);
    expect(paramsOf(content, "header")).toEqual(["Range"]);
    expect(content.requestBody).toBeUndefined();

    const list = opOf("GET", "/v1/videos");
    expect(paramsOf(list, "query")).toEqual(["limit", "after", "order"]);
    expect(list.parameters.find((p: Json) => p.name === "limit")).toMatchObject({ required: false, schema: { type: "integer", default: 20 } });
    expect(paramsOf(opOf("GET", "/v1/responses/{id}/input_items"), "path")).toEqual(["id"]);
    const file = opOf("GET", "/v1/images/files/{name}");
    expect(file.parameters.filter((p: Json) => p.required).map((p: Json) => p.name)).toEqual(["name", "expires", "signature"]);
  });

  it("has schemas that a JSON Schema 2020-12 validator compiles, exact where the gateway builds the object", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addFormat("binary", true);
    ajv.addSchema({ ...structuredClone(doc), $id: "doc" });
    for (const name of Object.keys(doc.components.schemas)) expect(() => ajv.compile({ $ref: `doc#/components/schemas/${name}` }), name).not.toThrow();

    const job = ajv.compile({ $ref: "doc#/components/schemas/VideoGenerationJob" });
    const valid = {
      id: "video-1",
      object: "video.generation.job",
      created_at: 1,
      status: "queued",
      model: "m",
      prompt: "p",
      progress: 0,
      seconds: 4,
      size: "1280x720",
      fps: 24,
      aspect_ratio: null,
      completed_at: null,
      expires_at: null,
      billed_seconds: null,
      cost: "0",
    };
    expect(job(valid)).toBe(true);
    expect(job({ ...valid, surprise: 1 })).toBe(false);
    expect(job({ ...valid, status: "done" })).toBe(false);
    const model = ajv.compile({ $ref: "doc#/components/schemas/Model" });
    expect(model({ id: "m", extra: true })).toBe(false);
    // A node's fields pass through a chat completion.
    const completion = doc.components.schemas.ChatCompletion;
    expect(completion.additionalProperties).toEqual({});
  });
});
