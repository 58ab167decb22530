// Server-sent events as a web Response: each payload is written as `data: <payload>` the moment
// it is produced, then exactly one `data: [DONE]` (when asked). A failure after the stream
// started becomes a frame holding the error object, then `data: [DONE]`. When the client goes
// away, the producer is still run to its end (drain.ts): it finishes reading the node and bills.
import type { Reply } from "../call";
import { drainAfterDisconnect } from "../drain";
import { DONE_FRAME, endFrames, errorFrame, eventFrame } from "../sse-frames";

type SseReply = Extract<Reply, { kind: "sse" }>;

export function sseResponse(reply: SseReply): Response {
  const iterator = reply.events[Symbol.asyncIterator]();
  const requestId = reply.headers["x-request-id"] ?? "";
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (cancelled) return; // the client left while we waited: drain() runs the rest
        if (done) {
          const end = endFrames(reply);
          if (end) controller.enqueue(end);
          controller.close();
          return;
        }
        controller.enqueue(eventFrame(value, reply.named));
      } catch (err) {
        if (cancelled) return;
        controller.enqueue(errorFrame(err, requestId, reply.dialect));
        if (reply.done) controller.enqueue(DONE_FRAME);
        controller.close();
      }
    },
    cancel() {
      cancelled = true;
      drainAfterDisconnect(iterator, requestId);
    },
  });
  return new Response(stream, { status: 200, headers: reply.headers });
}
