// The OpenAPI 3.1 document of the gateway, built from the contract's declarations (served
// operations and the paths declared but not served) with zod-to-openapi: request bodies, query,
// path and header parameters from each operation's input schema; answers from its output schema
// and what it produces; the error statuses each can answer; the security scheme. Built once.
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  zodToOpenAPIRegistry,
  type ResponseConfig,
  type RouteConfig,
  type ZodContentObject,
} from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { ZCapabilities, ZModelDetail, ZModelObject, ZPricing, ZVideoBlock } from "../routing/catalog/model-card";
import { operations, unservedOperations } from "./index";
import type { AnyOperation, UnservedOperation } from "./operation";
import * as out from "./outputs";

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

// Where the document is served (operations/document.ts) and the page that renders it (app/docs).
// Not imported from there: index.ts -> document.ts -> this file is an import cycle.
const OPENAPI_PATH = "/openapi.json";
const DOCS_PATH = "/docs";

const SECURITY_SCHEME = "ApiKey";

// ---- Answers: named components ----

/** Output schemas with a name in `components.schemas` (wherever they appear, they are a $ref). */
const NAMED_SCHEMAS: [z.ZodType, string][] = [
  [out.ZChatCompletion, "ChatCompletion"],
  [out.ZChatUsage, "ChatCompletionUsage"],
  [out.ZResponseObject, "Response"],
  [out.ZOutputItem, "ResponseOutputItem"],
  [out.ZInputItem, "ResponseInputItem"],
  [out.ZResponsesUsage, "ResponseUsage"],
  [out.ZInputItemsList, "ResponseInputItemList"],
  [out.ZEmbeddingsResult, "EmbeddingsResult"],
  [out.ZTranscription, "Transcription"],
  [out.ZImagesResult, "ImagesResult"],
  [out.ZVideoJob, "VideoGenerationJob"],
  [out.ZVideoList, "VideoGenerationJobList"],
  [out.ZNetworkStatus, "NetworkStatus"],
  [out.ZHealth, "Health"],
  [out.ZOpenApiDocument, "OpenApiDocument"],
  [ZModelObject, "Model"],
  [ZModelDetail, "ModelDetail"],
  [ZCapabilities, "ModelCapabilities"],
  [ZPricing, "ModelPricing"],
  [ZVideoBlock, "ModelVideoRanges"],
];

/** Names of outputs declared inline in an operation (by operation id). */
const OUTPUT_NAMES: Record<string, string> = {
  "models.list": "ModelList",
  "models.delete": "ModelDeleted",
  "responses.delete": "ResponseDeleted",
  "videos.delete": "VideoGenerationJobDeleted",
};

const pascal = (id: string) => id.replace(/(^|[._-])(\w)/g, (_m, _sep, c: string) => c.toUpperCase());

function nameSchema(schema: z.ZodType, name: string): void {
  zodToOpenAPIRegistry.add(schema, { ...zodToOpenAPIRegistry.get(schema), _internal: { refId: name } });
}

// ---- Errors ----

type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 413 | 416 | 422 | 429 | 500 | 501 | 502 | 503 | 504;

/** One component response per error status (the body is always the error object, part 2.1). */
const ERROR_RESPONSES: Record<ErrorStatus, { name: string; description: string }> = {
  400: { name: "BadRequest", description: "Invalid request: a field fails validation (`param` names it), or the body is not valid JSON or a readable form." },
  401: { name: "Unauthorized", description: "Missing, malformed, unknown, revoked or expired API key (`invalid_api_key`)." },
  402: {
    name: "PaymentRequired",
    description: "The workspace's credits do not cover the call (`insufficient_quota`), or the API key reached its spend limit (`key_spend_limit_reached`).",
  },
  403: { name: "Forbidden", description: "The credential may not do this (`permission_denied`)." },
  404: { name: "NotFound", description: "No such object in the caller's workspace: unknown, expired, or another workspace's id (all answered alike)." },
  405: { name: "MethodNotAllowed", description: "The path exists but not with this method (`method_not_allowed`); the `Allow` header lists the methods it has." },
  409: { name: "Conflict", description: "The object is not in a state that allows this." },
  413: { name: "PayloadTooLarge", description: "The body, or a file in it, exceeds the gateway's size limit (`request_too_large`)." },
  416: { name: "RangeNotSatisfiable", description: "The `Range` starts beyond the end of the content (`range_not_satisfiable`); `Content-Range` gives the size." },
  422: { name: "UnprocessableEntity", description: "The node serving the model refused the request as it stands; its code and message are passed on." },
  429: { name: "TooManyRequests", description: "The nodes serving the model are rate limited (`upstream_rate_limited`); `Retry-After` when they said when." },
  500: { name: "InternalError", description: "The gateway failed (`internal_error`); quote the `x-request-id` when reporting it." },
  501: { name: "NotImplemented", description: "Declared by the API reference but not served by this gateway yet (`not_implemented`)." },
  502: { name: "BadGateway", description: "The node serving the model failed or sent an unreadable answer (`upstream_error`); the call is not charged." },
  503: { name: "ServiceUnavailable", description: "No node is available to serve the model right now (`no_available_node`); retry shortly." },
  504: { name: "GatewayTimeout", description: "The node serving the model timed out (`upstream_timeout`); the call is not charged." },
};

/** Calls answered by a node: the model must exist and a node must serve it, in time. */
const NODE_CALL: Partial<Record<ErrorStatus, string>> = {
  404: "No such model (`model_not_found`).",
  422: ERROR_RESPONSES[422].description,
  429: ERROR_RESPONSES[429].description,
  502: ERROR_RESPONSES[502].description,
  503: ERROR_RESPONSES[503].description,
  504: ERROR_RESPONSES[504].description,
};

/** Statuses an operation answers beyond those its declaration implies, with what they mean there. */
const SPECIFIC_ERRORS: Record<string, Partial<Record<ErrorStatus, string>>> = {
  "chat.createCompletion": NODE_CALL,
  "responses.create": { ...NODE_CALL, 404: "No such model (`model_not_found`), or no stored response `previous_response_id` (`previous_response_not_found`)." },
  "embeddings.create": NODE_CALL,
  "audio.speech": NODE_CALL,
  "audio.transcribe": NODE_CALL,
  "audio.translate": NODE_CALL,
  "images.generate": NODE_CALL,
  "images.edit": NODE_CALL,
  "images.vary": NODE_CALL,
  "videos.create": { 404: "No such model (`model_not_found`)." },
  "videos.content": {
    409: "The job has not completed (`video_not_ready`): poll it until `completed`. Not charged.",
    416: ERROR_RESPONSES[416].description,
  },
  "videos.delete": { 409: "The job is still queued or rendering (`video_not_finished`)." },
  "models.delete": { 403: "Models are managed by the gateway's operators; an API key cannot delete one (`permission_denied`)." },
  "images.file": {
    403: "The link's signature is not valid (`invalid_signature`).",
    404: "The link has expired (`image_expired`) or the image no longer exists (`image_not_found`).",
  },
};

const REQUEST_ID_HEADER = { "x-request-id": { description: "The request's id (quote it when reporting a problem).", schema: { type: "string" as const } } };

function errorRef(status: ErrorStatus, description?: string) {
  const ref = { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` };
  return description && description !== ERROR_RESPONSES[status].description ? { ...ref, description } : ref;
}

// ---- Requests ----

type Shape = Record<string, z.ZodType>;

/** The object schema under an operation's input (`z.object({}).optional()` for "no input"). */
function inputObject(schema: z.ZodType): z.ZodObject {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.def.innerType as z.ZodType;
  if (!(s instanceof z.ZodObject)) throw new Error("an operation's input must be an object schema");
  return s;
}

/**
 * Form fields and query parameters arrive as strings that the schema coerces; `z.coerce` would
 * read as "nullable" (null coerces to 0). Documented as the number they must spell.
 */
function uncoerced(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional) return uncoerced(schema.def.innerType as z.ZodType).optional();
  if (schema instanceof z.ZodDefault) return uncoerced(schema.def.innerType as z.ZodType).default(schema.def.defaultValue as never);
  if ("coerce" in schema.def && schema.def.coerce) return schema.clone({ ...schema.def, coerce: false } as typeof schema.def);
  return schema;
}

const BINARY = z.string().meta({ format: "binary" });

/** An uploaded file, as the form carries it (the gateway hands services an UploadedFile). */
function fileField(schema: z.ZodType | undefined): z.ZodType {
  return schema === undefined || schema.safeParse(undefined).success ? BINARY.optional() : BINARY;
}

/** A new object of `shape`, keeping whether the input lets unknown fields through. */
function objectLike(source: z.ZodObject, shape: Shape): z.ZodObject {
  const catchall = source.def.catchall as z.ZodType | undefined;
  return catchall ? z.object(shape).catchall(catchall) : z.object(shape);
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

const headerName = (name: string) => name.replace(/(^|-)(\w)/g, (_m, sep: string, c: string) => sep + c.toUpperCase());

function requestOf(op: AnyOperation): { request: NonNullable<RouteConfig["request"]>; hasInput: boolean } {
  const input = inputObject(op.input);
  const shape = input.shape as Shape;
  const params = pathParams(op.path);
  const headerFields = Object.keys(op.headers ?? {});
  // Fields the gateway sets itself: path parameters, header values, its public origin.
  const set = new Set([...params, ...headerFields, ...(op.origin ? ["origin"] : [])]);
  const fields: Shape = Object.fromEntries(Object.entries(shape).filter(([k]) => !set.has(k)).map(([k, v]) => [k, uncoerced(v)]));
  const request: NonNullable<RouteConfig["request"]> = {};
  if (params.length) request.params = z.object(Object.fromEntries(params.map((p) => [p, shape[p] ?? z.string()])));
  if (headerFields.length) {
    request.headers = z.object(Object.fromEntries(headerFields.map((f) => [headerName(op.headers![f]!), (shape[f] ?? z.string()).optional()])));
  }
  const body = op.body;
  if (body.kind === "none") {
    if (op.query && Object.keys(fields).length) request.query = z.object(fields);
  } else {
    const content: ZodContentObject = {};
    if (body.kind === "json" || body.kind === "json_or_multipart") content["application/json"] = { schema: objectLike(input, fields) };
    if (body.kind === "multipart" || body.kind === "json_or_multipart") {
      const form: Shape = { ...fields };
      for (const f of body.files) form[f] = fileField(shape[f]);
      content["multipart/form-data"] = { schema: objectLike(input, form) };
    }
    request.body = { required: true, content };
  }
  return { request, hasInput: params.length + headerFields.length > 0 || body.kind !== "none" || !!request.query };
}

// ---- Answers ----

const isText = (mediaType: string) => mediaType.startsWith("text/") || mediaType === "application/x-subrip";

function successResponses(op: AnyOperation): Record<string, ResponseConfig> {
  const produces = op.produces;
  const json = (): ZodContentObject => (op.output ? { "application/json": { schema: op.output } } : {});
  switch (produces.kind) {
    case "json":
      return { [String(produces.status ?? 200)]: { description: "OK", headers: REQUEST_ID_HEADER, content: json() } };
    case "json_or_sse":
      return {
        200: {
          description:
            "The JSON object; with `stream: true`, server-sent events as they are produced (each `data:` line one JSON chunk; chat completions end with `data: [DONE]`, " +
            "the responses API with its terminal `response.*` event). A failure mid-stream arrives as a frame with an `error` key.",
          headers: REQUEST_ID_HEADER,
          content: { ...json(), "text/event-stream": { schema: { type: "string", description: "Server-sent events" } } },
        },
      };
    case "binary": {
      const content: ZodContentObject = produces.jsonToo ? json() : {};
      for (const type of produces.mediaTypes) content[type] = { schema: isText(type) ? { type: "string" } : { type: "string", format: "binary" } };
      const responses: Record<string, ResponseConfig> = {
        200: { description: produces.jsonToo ? "The JSON object, or text for the text formats" : "The content, sent as it is produced", headers: REQUEST_ID_HEADER, content },
      };
      if (op.headers && Object.values(op.headers).includes("range")) {
        responses[200]!.headers = { ...REQUEST_ID_HEADER, "Accept-Ranges": { description: "`bytes`", schema: { type: "string" } } };
        responses[206] = {
          description: "The part of the content that `Range` asked for",
          headers: { ...REQUEST_ID_HEADER, "Content-Range": { description: "`bytes <start>-<end>/<size>`", schema: { type: "string" } } },
          content,
        };
      }
      return responses;
    }
  }
}

function errorResponses(op: AnyOperation, hasInput: boolean): Record<string, { $ref: string; description?: string }> {
  const statuses = new Map<ErrorStatus, string | undefined>();
  if (hasInput) statuses.set(400, undefined);
  if (op.tier !== "none") {
    statuses.set(401, undefined);
    statuses.set(402, op.tier === "billed" ? undefined : "The API key reached its spend limit (`key_spend_limit_reached`).");
  }
  if (pathParams(op.path).length) statuses.set(404, undefined);
  if (op.body.kind !== "none") statuses.set(413, undefined);
  for (const [status, description] of Object.entries(SPECIFIC_ERRORS[op.id] ?? {})) statuses.set(Number(status) as ErrorStatus, description);
  statuses.set(500, undefined);
  return Object.fromEntries([...statuses].sort(([a], [b]) => a - b).map(([status, description]) => [String(status), errorRef(status, description)]));
}

function pricingNote(op: AnyOperation): string | undefined {
  const p = op.pricing;
  return p.kind === "free" ? undefined : `**Billed** (${p.unit.replace("_", " ")}): ${p.note}.`;
}

function servedRoute(op: AnyOperation): RouteConfig {
  const { request, hasInput } = requestOf(op);
  return {
    method: op.method.toLowerCase() as RouteConfig["method"],
    path: op.path,
    operationId: op.id,
    summary: op.summary,
    description: pricingNote(op),
    tags: [...op.tags],
    ...(op.tier === "none" && { security: [] }),
    request,
    responses: { ...successResponses(op), ...errorResponses(op, hasInput) },
    "x-pricing": op.pricing,
  };
}

function unservedRoute(op: UnservedOperation): RouteConfig {
  const params = pathParams(op.path);
  const request: NonNullable<RouteConfig["request"]> = {};
  if (params.length) request.params = z.object(Object.fromEntries(params.map((p) => [p, z.string()])));
  if (op.body === "json") request.body = { content: { "application/json": { schema: z.looseObject({}) } } };
  if (op.body === "multipart") request.body = { content: { "multipart/form-data": { schema: z.looseObject({}) } } };
  const responses: RouteConfig["responses"] = {};
  if (op.body === "json") {
    responses[400] = errorRef(400, "The body is not valid JSON.");
    responses[413] = errorRef(413);
  }
  Object.assign(responses, { 401: errorRef(401), 402: errorRef(402, "The API key reached its spend limit (`key_spend_limit_reached`)."), 500: errorRef(500), 501: errorRef(501) });
  return {
    method: op.method.toLowerCase() as RouteConfig["method"],
    path: op.path,
    operationId: `unserved.${op.method.toLowerCase()}${op.path.replace(/[{}]/g, "").replace(/\//g, "_")}`,
    summary: op.summary,
    description: "Declared by the API reference but **not yet implemented** by this gateway: once the credential is checked, it answers 501 `not_implemented`.",
    tags: [...op.tags],
    request,
    responses,
    "x-badges": [{ name: "Not yet implemented", position: "after", color: "#b45309" }],
  };
}

// ---- The document ----

const DESCRIPTION = `An OpenAI-compatible, multi-modal model gateway. Every call is billed to the workspace that owns the API key.

**Authentication.** Every path but \`/health\`, \`${OPENAPI_PATH}\` and signed image links needs \`Authorization: Bearer <API key>\` (gateway keys look like \`sk-gw-...\`). The credential is checked before anything else, on unknown paths too.

**Errors.** Every error answer is \`{"error": {"code", "message", "param", "type"}}\` (the \`Error\` schema) with the status each operation lists. A path that does not exist answers 404 \`unknown_url\`; a method a path does not have answers 405 \`method_not_allowed\` with an \`Allow\` header. \`HEAD\` is answered wherever \`GET\` is, and \`OPTIONS\` with 204 and \`Allow\`.

**Streaming.** Chat completions and responses stream server-sent events with \`stream: true\`.

**Not yet implemented.** Conversations, files, batches, fine-tuning and moderations are declared and answer 501 \`not_implemented\`.

A readable version of this document is at [${DOCS_PATH}](${DOCS_PATH}).`;

const TAGS = [
  { name: "Chat", description: "Chat completions: stateless, the whole conversation is sent each time." },
  { name: "Responses", description: "The responses API: stored, chained (`previous_response_id`), streamed or in the background." },
  { name: "Embeddings" },
  { name: "Audio", description: "Speech synthesis, transcription and translation." },
  { name: "Images", description: "Generation, edits, variations, and the signed links of `url` results." },
  { name: "Videos", description: "Asynchronous video jobs: create (queued), poll, download." },
  { name: "Models", description: "The catalog, with prices and video ranges." },
  { name: "Network" },
  { name: "Health" },
  { name: "Meta", description: "This document." },
  { name: "Conversations", description: "Not yet implemented." },
  { name: "Files", description: "Not yet implemented." },
  { name: "Batches", description: "Not yet implemented." },
  { name: "Fine-tuning", description: "Not yet implemented." },
  { name: "Moderations", description: "Not yet implemented." },
];

/** An object schema the gateway builds (`z.object`, no catch-all) has exactly its fields. */
function closeObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(closeObjects);
  if (typeof node !== "object" || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.type === "object" && schema.properties && !("additionalProperties" in schema)) schema.additionalProperties = false;
  for (const value of Object.values(schema)) closeObjects(value);
}

function build(): OpenApiDocument {
  for (const [schema, name] of NAMED_SCHEMAS) nameSchema(schema, name);
  for (const op of operations) if (op.output && !zodToOpenAPIRegistry.get(op.output)) nameSchema(op.output, OUTPUT_NAMES[op.id] ?? `${pascal(op.id)}Result`);

  nameSchema(out.ZErrorBody, "Error");
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", SECURITY_SCHEME, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "sk-gw-...",
    description: "A workspace API key, `Authorization: Bearer sk-gw-...`. Create keys in the dashboard.",
  });
  for (const [status, { name, description }] of Object.entries(ERROR_RESPONSES)) {
    const headers: Record<string, { description: string; schema: { type: "string" } }> = { ...REQUEST_ID_HEADER };
    if (status === "405") headers.Allow = { description: "The methods the path has", schema: { type: "string" } };
    if (status === "429") headers["Retry-After"] = { description: "Seconds to wait, when the node said", schema: { type: "string" } };
    if (status === "416") headers["Content-Range"] = { description: "`bytes */<size>`", schema: { type: "string" } };
    registry.registerComponent("responses", name, { description, headers, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });
  }
  for (const op of operations) registry.registerPath(servedRoute(op));
  for (const op of unservedOperations) registry.registerPath(unservedRoute(op));

  const doc = new OpenApiGeneratorV31([...registry.definitions, { type: "schema", schema: out.ZErrorBody }]).generateDocument({
    openapi: "3.1.0",
    info: { title: "Model gateway API", version: "v1", description: DESCRIPTION },
    tags: TAGS,
    security: [{ [SECURITY_SCHEME]: [] }],
  });
  closeObjects(doc.components?.schemas);
  return doc;
}

let cached: OpenApiDocument | undefined;

/** The document (built on first use; the same object afterwards: do not mutate it). */
export function openApiDocument(): OpenApiDocument {
  cached ??= build();
  return cached;
}
