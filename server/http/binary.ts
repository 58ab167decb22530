// Writes a BinaryBody: bytes are sent as they are produced. When the client goes away, the
// producer is still run to its end (it finishes reading the node and bills), bounded by
// STREAM_DRAIN_TIMEOUT_MS, as for server-sent events.
import type { BinaryBody } from "../binary-body";
import { env } from "../env";
import { toGatewayError } from "./error-adapter";

function drain(iterator: AsyncIterator<Uint8Array>, requestId: string): void {
  const deadline = Date.now() + env.STREAM_DRAIN_TIMEOUT_MS;
  void (async () => {
    try {
      while (Date.now() < deadline && !(await iterator.next()).done);
      if (Date.now() >= deadline) await iterator.return?.();
    } catch (err) {
      if (!toGatewayError(err)) console.error(`[${requestId}] binary stream failed after the client left:`, err);
    }
  })();
}

export function binaryResponse(result: BinaryBody, requestId: string): Response {
  const headers = { "content-type": result.contentType, "x-request-id": requestId, ...result.headers };
  if (typeof result.body === "string" || result.body instanceof Uint8Array) {
    return new Response(result.body as BodyInit, { status: 200, headers });
  }
  const iterator = result.body[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        if (!toGatewayError(err)) console.error(`[${requestId}] binary stream failed:`, err);
        controller.error(err);
      }
    },
    cancel() {
      drain(iterator, requestId);
    },
  });
  return new Response(stream, { status: 200, headers: { ...headers, "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" } });
}
