// What went wrong reaching a registered MCP server, as the gateway's errors: the server is down
// or refused (502 mcp_server_unavailable), timed out (504), or the outbound guard refused it
// (its own 502 codes, passed on).
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { GatewayError } from "../../kernel/errors";

/** The HTTP status an SDK transport error carries (StreamableHTTPError, SseError), if any. */
export function transportStatus(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "number" && code >= 100 && code < 600 && !(err instanceof McpError) ? code : undefined;
}

function rootCause(err: unknown): unknown {
  let e = err;
  for (let i = 0; i < 5 && e && typeof e === "object" && "cause" in e && (e as { cause?: unknown }).cause; i++) e = (e as { cause: unknown }).cause;
  return e;
}

export function upstreamFailure(serverName: string, err: unknown): GatewayError {
  // The outbound guard's refusals (refused address, unreachable, too large, timed out) keep their code.
  const guard = [err, rootCause(err)].find((e): e is GatewayError => e instanceof GatewayError);
  if (guard) return new GatewayError({ status: guard.status, code: guard.code, message: `The MCP server \`${serverName}\` could not be reached: ${guard.message}`, cause: err });
  const status = transportStatus(err);
  const why = status ? `it answered HTTP ${status}` : err instanceof Error ? err.message : String(err);
  const timedOut = /timed? ?out/i.test(why);
  return new GatewayError({
    status: timedOut ? 504 : 502,
    code: timedOut ? "mcp_server_timeout" : "mcp_server_unavailable",
    message: `The MCP server \`${serverName}\` could not be reached: ${why}.`,
    cause: err,
  });
}
