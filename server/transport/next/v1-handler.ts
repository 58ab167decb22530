// The Next.js host of the dispatcher: the route handlers under app/v1 (and /health, /mcp) hand every
// request here, so /v1 answers the same under `next dev`, `next start` and the node:http data
// plane that `npm start` runs.
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { IncomingCall, Reply } from "../call";
import { dispatch, observeEnd } from "../dispatch";
import { binaryResponse } from "./binary";
import { sseResponse } from "./sse";
import { serveMcp } from "../mcp/mcp-entry";
import { MCP_PATH } from "../mcp/mcp-path";

function toResponse(reply: Reply, head: boolean): Response {
  switch (reply.kind) {
    case "json":
      // Not compressed here (server/transport/compression.ts is the data plane's): Next.js drops
      // a route handler's Content-Encoding, and compresses the answer itself (next.config
      // `compress`: gzip or deflate, whatever its size; never an answer marked no-transform,
      // which event streams and downloads are, nor media).
      return new Response(head ? null : reply.body, { status: reply.status, headers: reply.headers });
    case "empty":
      return new Response(null, { status: reply.status, headers: reply.headers });
    case "sse":
      return sseResponse(reply);
    case "binary":
      // Next.js sends a streamed body chunked and drops Content-Length; the length a stored file
      // states only reaches clients through the node:http data plane. The reply's headers (CORS
      // and the like) go out beside the body's own.
      return binaryResponse(reply.body, reply.headers);
  }
}

export async function handleV1(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const call: IncomingCall = {
    method: req.method,
    path: url.pathname,
    query: url.searchParams,
    header: (name) => req.headers.get(name) ?? undefined,
    body: () => (req.body ? Readable.fromWeb(req.body as NodeReadableStream<Uint8Array>) : Readable.from([])),
    selfOrigin: () => url.origin,
    // Set by the production server on every request it hands to Next.js (a client's own is overwritten).
    clientIp: () => req.headers.get("x-gateway-client-ip") ?? "unknown",
  };
  const reply = url.pathname === MCP_PATH ? await serveMcp(call) : await dispatch(call);
  const res = toResponse(reply, req.method === "HEAD");
  // Under Next.js, a request is observed until its answer's headers (a stream's end is not seen here).
  observeEnd(reply);
  if (req.method !== "HEAD" || !res.body) return res;
  await res.body.cancel(); // a stored file or a node's stream must not stay open
  return new Response(null, { status: res.status, headers: res.headers });
}

/** Every method export of a route file: `export const { GET, POST, ... } = v1Handlers`. */
export const v1Handlers = Object.fromEntries(
  (["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const).map((m) => [m, (req: Request) => handleV1(req)]),
) as Record<"GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS", (req: Request) => Promise<Response>>;
