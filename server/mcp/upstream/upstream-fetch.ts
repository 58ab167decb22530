// The fetch the MCP SDK's client transports use to reach a registered server: every request
// through the outbound guard (its policy, checked addresses, no redirects), with the server's
// credentials added. Streamable HTTP's optional GET stream (server-initiated messages, which the
// gateway does not relay) is answered 405 here without a request, as a server without one would;
// the older HTTP+SSE transport's GET stream is the channel its answers come on, read as it arrives.
import { env } from "../../infra/env";
import { guardedFetch } from "../../infra/net/outbound-guard";
import { injectTrace } from "../../infra/telemetry/tracing";
import type { McpServerEntry } from "../server-def";
import { accessToken } from "./oauth-token";

export type TransportFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The headers that authenticate the gateway to `server`. */
export async function authHeaders(server: Pick<McpServerEntry, "id" | "auth">): Promise<Record<string, string>> {
  const auth = server.auth;
  if (auth.kind === "header") return auth.headers;
  if (auth.kind === "oauth") return { authorization: `Bearer ${await accessToken(server.id, auth)}` };
  return {};
}

function bodyOf(body: RequestInit["body"]): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  throw new Error("an MCP request body is JSON text");
}

export function upstreamFetch(server: McpServerEntry): TransportFetch {
  return async (url, init = {}) => {
    const method = init.method ?? "GET";
    const sse = server.transport === "sse";
    if (method === "GET" && !sse) return new Response(null, { status: 405 });
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(await authHeaders(server))) headers.set(name, value);
    injectTrace(headers);
    return guardedFetch(url, {
      method,
      headers,
      body: bodyOf(init.body),
      signal: init.signal ?? undefined,
      timeoutMs: env.MCP_TOOL_TIMEOUT_MS,
      stream: sse && method === "GET",
    });
  };
}
