// The Next.js host of the dispatcher: the route handlers under app/v1 (and /health) hand every
// request here, so /v1 answers the same under `next dev`, `next start` and the node:http data
// plane that `npm start` runs.
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { BinaryBody } from "../../kernel/binary-body";
import { observeEnd, type IncomingCall, type Reply } from "../call";
import { COMPRESS_MIN_BYTES, encodeLargeJson } from "../compression";
import { dispatch } from "../dispatch";
import { binaryResponse } from "./binary";
import { sseResponse } from "./sse";

/**
 * A JSON answer, compressed from COMPRESS_MIN_BYTES on as on the data plane (compression.ts).
 * Next.js's own compression leaves an answer that states its Content-Encoding as it is.
 */
async function jsonResponse(reply: Extract<Reply, { kind: "json" }>, head: boolean, acceptEncoding: string | undefined): Promise<Response> {
  const bytes = Buffer.byteLength(reply.body);
  if (bytes < COMPRESS_MIN_BYTES) return new Response(head ? null : reply.body, { status: reply.status, headers: reply.headers });
  const out = await encodeLargeJson(reply.headers, reply.body, bytes, acceptEncoding);
  return new Response(head ? null : (out.body as BodyInit), { status: reply.status, headers: out.headers });
}

function toResponse(reply: Reply, head: boolean, acceptEncoding: string | undefined): Response | Promise<Response> {
  switch (reply.kind) {
    case "json":
      return jsonResponse(reply, head, acceptEncoding);
    case "empty":
      return new Response(null, { status: reply.status, headers: reply.headers });
    case "sse":
      return sseResponse(reply);
    case "binary": {
      // Next.js sends a streamed body chunked and drops Content-Length; the length a stored file
      // states (x-content-length) only reaches clients through the node:http data plane.
      // The reply's headers (the body's own, CORS and the like) all go out.
      const { "x-content-length": _length, ...headers } = { ...reply.body.headers, ...reply.headers };
      return binaryResponse(new BinaryBody(reply.body.body, reply.body.contentType, headers, reply.body.options), reply.headers["x-request-id"] ?? "");
    }
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
  };
  const reply = await dispatch(call);
  const res = await toResponse(reply, req.method === "HEAD", req.headers.get("accept-encoding") ?? undefined);
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
