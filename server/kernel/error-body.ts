// The bodies a failure is answered with: OpenAI's error object, or Anthropic's for the operations
// in its format, with the status it goes out with. Used by the hosts' error adapter
// (server/transport/error-adapter.ts) and by what answers outside a host (a batch's error lines).
import { anthropicStatus, GatewayError, type Dialect } from "./errors";

export type OpenAIErrorBody = { error: { code: string | null; message: string; param: string | null; type: string } };
export type AnthropicErrorBody = { type: "error"; error: { type: string; message: string }; request_id: string };

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
export function anthropicError(err: GatewayError, requestId: string): { status: number; body: AnthropicErrorBody } {
  const type = ANTHROPIC_TYPES[err.status] ?? (err.status >= 500 ? "api_error" : "invalid_request_error");
  return { status: anthropicStatus(err.status), body: { type: "error", error: { type, message: err.message }, request_id: requestId } };
}

/** A failure's status and body in an operation's dialect. */
export function errorAnswer(err: GatewayError, requestId: string, dialect: Dialect = "openai"): { status: number; body: OpenAIErrorBody | AnthropicErrorBody } {
  return dialect === "openai" ? { status: err.status, body: errorBody(err) } : anthropicError(err, requestId);
}

/** What an unexpected failure is answered as (its cause is logged with the request id, never shown). */
export function internalError(requestId: string, streaming = false): GatewayError {
  return new GatewayError({
    status: 500,
    code: "internal_error",
    type: "server_error",
    message: streaming
      ? `The gateway failed while streaming (request id ${requestId}).`
      : `The gateway had an error while processing your request. Quote request id ${requestId} when reporting it.`,
  });
}
