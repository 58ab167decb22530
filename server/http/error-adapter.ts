// The ONE mapping from failures to the OpenAI error body and HTTP status.
import { TRPCError } from "@trpc/server";
import { GatewayError } from "../errors";

export type OpenAIErrorBody = { error: { code: string | null; message: string; param: string | null; type: string } };

type Issue = { path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>; message: string };

/** ["messages", 0, "role"] -> "messages[0].role", the way OpenAI names a nested param. */
export function formatParam(path: Issue["path"] = []): string | null {
  let out = "";
  for (const seg of path) {
    const key = typeof seg === "object" && seg !== null ? seg.key : seg;
    out += typeof key === "number" ? `[${key}]` : out ? `.${String(key)}` : String(key);
  }
  return out || null;
}

function validationError(issues: Issue[]): GatewayError {
  const first = issues[0];
  const param = formatParam(first?.path);
  const message = first ? (param ? `Invalid value for '${param}': ${first.message}` : first.message) : "Invalid request";
  return new GatewayError({ status: 400, code: "invalid_value", message, param });
}

function hasIssues(value: unknown): value is { issues: Issue[] } {
  return typeof value === "object" && value !== null && Array.isArray((value as { issues?: unknown }).issues);
}

const TRPC_STATUS: Partial<Record<TRPCError["code"], number>> = {
  BAD_REQUEST: 400,
  PARSE_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
};

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
    const status = TRPC_STATUS[err.code];
    if (status) return new GatewayError({ status, code: err.code.toLowerCase(), message: err.message });
  }
  return null;
}

export function errorBody(err: GatewayError): OpenAIErrorBody {
  return { error: { code: err.code, message: err.message, param: err.param, type: err.type } };
}

/** The response for a failure. Unexpected errors are logged with the request id, never shown. */
export function errorResponse(err: unknown, requestId: string): Response {
  const known = toGatewayError(err);
  const gatewayError =
    known ??
    new GatewayError({
      status: 500,
      code: "internal_error",
      type: "server_error",
      message: `The gateway had an error while processing your request. Quote request id ${requestId} when reporting it.`,
    });
  if (!known) console.error(`[${requestId}] internal error:`, err);
  return new Response(JSON.stringify(errorBody(gatewayError)), {
    status: gatewayError.status,
    headers: { "content-type": "application/json", "x-request-id": requestId, ...gatewayError.headers },
  });
}
