// The ONE mapping from failures to their answer for the hosts: the error body (OpenAI's, or
// Anthropic's for the operations in its format; the bodies themselves are kernel/error-body.ts),
// HTTP status and headers, and the one place an unexpected failure becomes `internal_error`
// (logged with the request id, never shown).
import { TRPCError } from "@trpc/server";
import { GatewayError, type Dialect } from "../kernel/errors";
import { errorAnswer, internalError } from "../kernel/error-body";
import { STATUS_BY_CODE } from "../trpc/error-codes";
import { hasIssues, validationError } from "../kernel/validation-error";
import type { Reply } from "./call";
import { logFor } from "../infra/telemetry/log";
import { detailHeaders } from "./answer-headers";

const log = logFor("http");

export { formatParam } from "../kernel/validation-error";
export { anthropicError, errorBody, type OpenAIErrorBody } from "../kernel/error-body";

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

/**
 * A failure as a GatewayError; an unexpected one is logged with the request id and answered as
 * `internal_error` (`streaming`: it broke a stream off after its first event).
 */
export function reportable(err: unknown, requestId: string, streaming = false): GatewayError {
  const known = toGatewayError(err);
  if (known) return known;
  log.error({ err, requestId }, streaming ? "stream failed" : "internal error");
  return internalError(requestId, streaming);
}

/** The answer for a failure, for the dispatcher's hosts, in the operation's dialect. */
export function errorReply(err: unknown, requestId: string, dialect: Dialect = "openai"): Extract<Reply, { kind: "json" }> {
  const e = reportable(err, requestId);
  const headers = { "content-type": "application/json", "x-request-id": requestId, ...detailHeaders(e.detail) };
  const { status, body } = errorAnswer(e, requestId, dialect);
  return { kind: "json", status, headers, body: JSON.stringify(body) };
}

/** The same, as a web Response (dashboard route handlers). */
export function errorResponse(err: unknown, requestId: string): Response {
  const reply = errorReply(err, requestId);
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}
