// Writes a BinaryBody: bytes are sent as they are produced. When the client goes away, the
// producer is still run to its end (drain.ts), as for server-sent events.
import type { BinaryBody } from "../../kernel/binary-body";
import { drainAfterDisconnect } from "../drain";
import { toGatewayError } from "../error-adapter";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("http");

export function binaryResponse(result: BinaryBody, requestId: string): Response {
  const headers = { "content-type": result.contentType, "x-request-id": requestId, ...result.headers };
  const status = result.options.status ?? 200;
  if (typeof result.body === "string" || result.body instanceof Uint8Array) {
    return new Response(result.body as BodyInit, { status, headers });
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
  return new Response(stream, { status, headers: { ...headers, "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" } });
}
