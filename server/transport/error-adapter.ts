// The ONE mapping from failures to the error body (OpenAI's, or Anthropic's for the operations in
// its format), HTTP status and headers, and the one place an unexpected failure becomes
// `internal_error` (logged with the request id, never shown).
import { TRPCError } from "@trpc/server";
import { anthropicStatus, GatewayError, type Dialect } from "../kernel/errors";
import { STATUS_BY_CODE } from "../trpc/error-codes";
import { hasIssues, validationError } from "../kernel/validation-error";
import type { Reply } from "./call";
import { logFor } from "../infra/telemetry/log";
import { detailHeaders } from "./answer-headers";

const log = logFor("http");

export { formatParam } from "../kernel/validation-error";

export type OpenAIErrorBody = { error: { code: string | null; message: string; param: string | null; type: string } };

/** Reduces anything thrown to a GatewayError, or null when it is an unexpected failure. */
export function toGatewayError(err: unknown): GatewayError | null {
  if (err instanceof GatewayError) return err;
  if (hasIssues(err)) return validationError(err.issues);
  if (err instanceof TRPCError) {
    // Invalid output (a server bug) also carries zod issues: only input validation is a 400.
    if (hasIssues(err.cause) && err.code !== "BAD_REQUEST") return null;
    if (err.cause && err.cause !== err) {
      const inner = toGatewayError(err.cause);
      if (inner) return inner;
    }
    const status = STATUS_BY_CODE[err.code];
    if (status) return new GatewayError({ status, code: err.code.toLowerCase(), message: err.message });
  }
  return null;
}

export function errorBody(err: GatewayError): OpenAIErrorBody {
  return { error: { code: err.code, message: err.message, param: err.param, type: err.type } };
}

/** Anthropic's error type for each status; an overloaded or unavailable upstream is its 529. */
const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  502: "api_error",
  503: "overloaded_error",
  504: "timeout_error",
};

/** A failure in Anthropic's shape, and the status it goes out with. */
export function anthropicError(err: GatewayError, requestId: string): { status: number; body: { type: "error"; error: { type: string; message: string }; request_id: string } } {
  const type = ANTHROPIC_TYPES[err.status] ?? (err.status >= 500 ? "api_error" : "invalid_request_error");
  return { status: anthropicStatus(err.status), body: { type: "error", error: { type, message: err.message }, request_id: requestId } };
}

/**
 * A failure as a GatewayError; an unexpected one is logged with the request id and answered as
 * `internal_error` (`streaming`: it broke a stream off after its first event).
 */
export function reportable(err: unknown, requestId: string, streaming = false): GatewayError {
  const known = toGatewayError(err);
  if (known) return known;
  log.error({ err, requestId }, streaming ? "stream failed" : "internal error");
  return new GatewayError({
    status: 500,
    code: "internal_error",
    type: "server_error",
    message: streaming
      ? `The gateway failed while streaming (request id ${requestId}).`
      : `The gateway had an error while processing your request. Quote request id ${requestId} when reporting it.`,
  });
}

/** The answer for a failure, for the dispatcher's hosts, in the operation's dialect. */
export function errorReply(err: unknown, requestId: string, dialect: Dialect = "openai"): Extract<Reply, { kind: "json" }> {
  const e = reportable(err, requestId);
  const headers = { "content-type": "application/json", "x-request-id": requestId, ...detailHeaders(e.detail) };
  if (dialect === "openai") return { kind: "json", status: e.status, headers, body: JSON.stringify(errorBody(e)) };
  const { status, body } = anthropicError(e, requestId);
  return { kind: "json", status, headers, body: JSON.stringify(body) };
}

/** The same, as a web Response (dashboard route handlers). */
export function errorResponse(err: unknown, requestId: string): Response {
  const reply = errorReply(err, requestId);
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}
