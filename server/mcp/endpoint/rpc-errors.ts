// The gateway's refusals as JSON-RPC errors on /mcp: a code by kind (the MCP SDK's where one
// fits; -32602 for an unknown tool, as the specification's example), the message, and in `data`
// the HTTP status and the gateway's error code the same refusal has on /v1.
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { GatewayError } from "../../kernel/errors";

/** JSON-RPC error codes of the gateway's refusals (documented in docs/MCP.md). */
export const RPC_CODES = {
  unauthorized: -32001,
  paymentRequired: -32002,
  forbidden: -32003,
  rateLimited: -32029,
  unavailable: -32050,
  sessionNotFound: -32004,
} as const;

function codeOf(status: number): number {
  if (status === 400 || status === 404) return ErrorCode.InvalidParams;
  if (status === 401) return RPC_CODES.unauthorized;
  if (status === 402) return RPC_CODES.paymentRequired;
  if (status === 403) return RPC_CODES.forbidden;
  if (status === 429) return RPC_CODES.rateLimited;
  if (status >= 500) return RPC_CODES.unavailable;
  return ErrorCode.InternalError;
}

export type RpcError = Error & { code: number; data?: unknown };

/** An error the SDK answers as `{code, message, data}` (an McpError would prefix its message with "MCP error <code>:"). */
const rpc = (code: number, message: string, data?: unknown): RpcError => Object.assign(new Error(message), { code, data });

/** What a handler throws to the SDK, which answers it as the request's JSON-RPC error. */
export function toMcpError(err: unknown): RpcError {
  if (err instanceof McpError) return rpc(err.code, err.message.replace(/^MCP error -?\d+: /, ""), err.data);
  if (err instanceof GatewayError) {
    const data: Record<string, unknown> = { status: err.status, code: err.code, type: err.type };
    if (err.detail.retryAfter !== undefined) data.retry_after = err.detail.retryAfter;
    return rpc(codeOf(err.status), err.message, data);
  }
  return rpc(ErrorCode.InternalError, "The gateway failed to serve this request.", { status: 500, code: "internal_error" });
}
