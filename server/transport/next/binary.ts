// Writes a BinaryBody as a route handler's Response: bytes are sent as they are produced. When the
// client goes away, the producer is still run to its end (drain.ts), as for server-sent events.
import type { BinaryBody } from "../../kernel/binary-body";
import { binaryHeaders, type BinaryHeaderOptions } from "../binary-headers";
import type { ReplyHeaders } from "../call";
import { drainAfterDisconnect } from "../drain";
import { toGatewayError } from "../error-adapter";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("http");

/**
 * Next.js drops a route handler's Content-Length (it sends the body chunked). A route that the
 * production server serves through Next.js states a stored file's length under this name instead,
 * and that server sends it as Content-Length (node/gateway-server.ts).
 */
export const HOST_CONTENT_LENGTH = "x-content-length";

export type BinaryResponseOptions = BinaryHeaderOptions & {
  /**
   * States the body's length under HOST_CONTENT_LENGTH: for the dashboard's routes. Not for /v1,
   * which the production server answers without Next.js: under `next dev` or `next start`, where
   * nothing renames it, the header would reach the client as it is.
   */
  hostLength?: boolean;
};

/** `result` with `headers` (the request id, and the dispatcher's CORS and the like) beside its own. */
export function binaryResponse(result: BinaryBody, headers: ReplyHeaders, opts: BinaryResponseOptions = {}): Response {
  const { "content-length": length, ...own } = binaryHeaders(result, opts);
  const stated: ReplyHeaders = opts.hostLength && length !== undefined ? { [HOST_CONTENT_LENGTH]: length } : {};
  const all: ReplyHeaders = { ...own, ...stated, ...headers };
  const requestId = headers["x-request-id"] ?? "";
  const status = result.options.status ?? 200;
  if (typeof result.body === "string" || result.body instanceof Uint8Array) {
    return new Response(result.body as BodyInit, { status, headers: all });
  }
  const iterator = result.body[Symbol.asyncIterator]();
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (cancelled) return; // the client left while we waited: the drain runs the rest
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        if (cancelled) return;
        if (!toGatewayError(err)) log.error({ err, requestId }, "binary stream failed");
        controller.error(err);
      }
    },
    cancel() {
      cancelled = true;
      if (result.options.drain === false) void iterator.return?.();
      else drainAfterDisconnect(iterator, requestId);
    },
  });
  return new Response(stream, { status, headers: { ...all, "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" } });
}
