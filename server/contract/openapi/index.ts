// The OpenAPI 3.1 document of the gateway, built from the contract's declarations (handed in by
// contract/index.ts, which serves the document) with zod-to-openapi: request bodies, query, path and header parameters from each
// operation's input schema; answers from its output schema and what it produces; the error
// statuses each can answer; the security scheme. Built once.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import type { AnyOperation } from "../operation";
import { ERROR_RESPONSES } from "../errors";
import { ZErrorBody } from "../../kernel/answer-schemas";
import { REQUEST_ID_HEADER, servedRoute } from "./answers";
import { nameSchemas } from "./names";

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

// Where the document is served (operations/document.ts) and the page that renders it (app/docs).
const OPENAPI_PATH = "/openapi.json";
const DOCS_PATH = "/docs";

const SECURITY_SCHEME = "ApiKey";

const DESCRIPTION = `An OpenAI-compatible, multi-modal model gateway. Every call is billed to the workspace that owns the API key.

**Authentication.** Every path but \`/health\`, \`${OPENAPI_PATH}\`, \`/.well-known/jwks.json\` and signed image links needs \`Authorization: Bearer <credential>\`: a workspace API key (\`sk-gw-...\`), or a session token of a plan (a JWT minted by \`POST /v1/sessions\` or signed by an identity provider the workspace trusts), which is rate limited and capped by its plan. The credential is checked before anything else, on unknown paths too.

**Errors.** Every error answer is \`{"error": {"code", "message", "param", "type"}}\` (the \`Error\` schema) with the status each operation lists; the Messages operations answer in Anthropic's shape, \`{"type": "error", "error": {"type", "message"}, "request_id"}\` (the \`AnthropicError\` schema), with 529 for an overloaded upstream. A path that does not exist answers 404 \`unknown_url\`; a method a path does not have answers 405 \`method_not_allowed\` with an \`Allow\` header. \`HEAD\` is answered wherever \`GET\` is, and \`OPTIONS\` with 204 and \`Allow\`.

**Streaming.** Chat completions and responses stream server-sent events with \`stream: true\`.

A readable version of this document is at [${DOCS_PATH}](${DOCS_PATH}).`;

const TAGS = [
  { name: "Chat", description: "Chat completions: stateless, the whole conversation is sent each time." },
  { name: "Responses", description: "The responses API: stored, chained (`previous_response_id`), streamed or in the background." },
  { name: "Messages", description: "Anthropic's Messages API, for Anthropic-format clients: its request, answer, events and errors, on every node." },
  { name: "Embeddings" },
  { name: "Audio", description: "Speech synthesis, transcription and translation." },
  { name: "Images", description: "Generation, edits, variations, and the signed links of `url` results." },
  { name: "Videos", description: "Asynchronous video jobs: create (queued), poll, download." },
  { name: "Models", description: "The catalog, with prices and video ranges." },
  { name: "Network" },
  { name: "Health" },
  { name: "Meta", description: "This document." },
  { name: "Conversations", description: "Items kept in order for the responses API (`conversation`)." },
  { name: "Files", description: "Uploaded files, per workspace: batch input, and the output of batches." },
  { name: "Batches", description: "Files of requests run in the background within 24 hours, each line billed at the model's batch price." },
  { name: "Fine-tuning", description: "Jobs that train a model on a `fine-tune` file, run by a node that trains; held at create, billed per token trained." },
  { name: "Moderations", description: "Classify text against OpenAI's moderation categories." },
];

/** An object schema the gateway builds (`z.object`, no catch-all) has exactly its fields. */
function closeObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(closeObjects);
  if (typeof node !== "object" || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.type === "object" && schema.properties && !("additionalProperties" in schema)) schema.additionalProperties = false;
  for (const value of Object.values(schema)) closeObjects(value);
}

function build(operations: readonly AnyOperation[]): OpenApiDocument {
  nameSchemas(operations);
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", SECURITY_SCHEME, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "sk-gw-... or JWT",
    description: "A workspace API key, `Authorization: Bearer sk-gw-...` (create keys in the dashboard), or a plan session token (an ES256 JWT from `POST /v1/sessions`, verifiable with `/.well-known/jwks.json`).",
  });
  for (const [status, { name, description }] of Object.entries(ERROR_RESPONSES)) {
    const headers: Record<string, { description: string; schema: { type: "string" } }> = { ...REQUEST_ID_HEADER };
    if (status === "405") headers.Allow = { description: "The methods the path has", schema: { type: "string" } };
    if (status === "429") headers["Retry-After"] = { description: "Seconds to wait, when the node said", schema: { type: "string" } };
    if (status === "416") headers["Content-Range"] = { description: "`bytes */<size>`", schema: { type: "string" } };
    registry.registerComponent("responses", name, { description, headers, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });
  }
  for (const op of operations) registry.registerPath(servedRoute(op));

  const doc = new OpenApiGeneratorV31([...registry.definitions, { type: "schema", schema: ZErrorBody }]).generateDocument({
    openapi: "3.1.0",
    info: { title: "Model gateway API", version: "v1", description: DESCRIPTION },
    tags: TAGS,
    security: [{ [SECURITY_SCHEME]: [] }],
  });
  closeObjects(doc.components?.schemas);
  return doc;
}

let cached: OpenApiDocument | undefined;

/** The document of the contract's operations (built on first use; the same object afterwards: do not mutate it). */
export function openApiDocument(operations: readonly AnyOperation[]): OpenApiDocument {
  cached ??= build(operations);
  return cached;
}
