// The answers of an operation in the document (what it produces on success, and the error
// statuses it can answer), and the whole route of an operation.
import type { ResponseConfig, RouteConfig, ZodContentObject } from "@asteasolutions/zod-to-openapi";
import { ZAnthropicErrorBody } from "../../kernel/answer-schemas";
import { anthropicStatus } from "../../kernel/errors";
import { ERROR_RESPONSES, type ErrorStatus } from "../errors";
import type { AnyOperation } from "../operation";
import { pathParams, requestOf } from "./requests";

export const REQUEST_ID_HEADER = { "x-request-id": { description: "The request's id (quote it when reporting a problem).", schema: { type: "string" as const } } };

const CACHE_STATUS_HEADER = {
  "x-gateway-cache": { description: "What the response cache did: `hit` (answered from it), `miss` (called a node, stored the answer) or `bypass`.", schema: { type: "string" as const, enum: ["hit", "miss", "bypass"] } },
};

export function errorRef(status: ErrorStatus, description?: string) {
  const ref = { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` };
  return description && description !== ERROR_RESPONSES[status].description ? { ...ref, description } : ref;
}

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

/** An error status of an operation in Anthropic's format: its body is AnthropicError, and an unavailable upstream is Anthropic's 529. */
function anthropicErrors(statuses: Map<ErrorStatus, string | undefined>): Record<string, ResponseConfig> {
  const out: Record<string, ResponseConfig> = {};
  for (const [status, description] of statuses) {
    out[String(anthropicStatus(status))] = {
      description: description ?? ERROR_RESPONSES[status].description,
      headers: REQUEST_ID_HEADER,
      content: { "application/json": { schema: ZAnthropicErrorBody } },
    };
  }
  return out;
}

function errorResponses(op: AnyOperation, hasInput: boolean): Record<string, ResponseConfig | { $ref: string; description?: string }> {
  const statuses = new Map<ErrorStatus, string | undefined>();
  if (hasInput) statuses.set(400, undefined);
  if (op.tier !== "none") {
    // Two credentials in one request (ambiguous_credentials), and a key not allowed the operation
    // (insufficient_permissions), whatever the operation.
    statuses.set(400, undefined);
    statuses.set(401, undefined);
    statuses.set(403, undefined);
    // A priced call passes admission: the plan's models (403), rate limits (429), caps and balance (402).
    if (op.tier === "billed" && op.pricing.kind !== "free") for (const s of [402, 403, 429] as const) statuses.set(s, undefined);
  }
  if (pathParams(op.path).length) statuses.set(404, undefined);
  if (op.body.kind !== "none") statuses.set(413, undefined);
  for (const [status, description] of Object.entries(op.errors ?? {})) statuses.set(Number(status) as ErrorStatus, description);
  statuses.set(500, undefined);
  if (op.dialect === "anthropic") return anthropicErrors(new Map([...statuses].sort(([a], [b]) => a - b)));
  return Object.fromEntries([...statuses].sort(([a], [b]) => a - b).map(([status, description]) => [String(status), errorRef(status, description)]));
}

const X402_NOTES = {
  exact: "**x402**: without an API key, payable with an x402 payment (`exact` scheme, the price up front) when the operator enabled x402.",
  upto: "**x402**: without an API key, payable with an x402 payment (`upto` scheme: up to the call's highest cost, settled for its metered cost) when the operator enabled x402.",
  read: "**x402**: open without an API key when the operator enabled x402.",
} as const;

function pricingNote(op: AnyOperation): string | undefined {
  const p = op.pricing;
  const notes = [p.kind === "free" ? null : `**Billed** (${p.unit.replace("_", " ")}): ${p.note}.`, op.x402 ? X402_NOTES[op.x402] : null].filter(Boolean);
  return notes.length ? notes.join("\n\n") : undefined;
}

/** The success answers, with the response cache's status header on the operations it keeps. */
function withCacheHeader(op: AnyOperation, responses: Record<string, ResponseConfig>): Record<string, ResponseConfig> {
  if (!op.cached) return responses;
  return Object.fromEntries(Object.entries(responses).map(([status, r]) => [status, { ...r, headers: { ...CACHE_STATUS_HEADER, ...(r.headers as object) } }]));
}

export function servedRoute(op: AnyOperation): RouteConfig {
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
    responses: { ...withCacheHeader(op, successResponses(op)), ...errorResponses(op, hasInput) },
    "x-pricing": op.pricing,
    // The group a restricted API key needs (docs/API.md, "Restricted keys").
    ...(op.permission && { "x-permission": op.permission }),
  };
}
