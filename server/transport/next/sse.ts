// Server-sent events: each payload is written as `data: <payload>` the moment it is produced,
// then exactly one `data: [DONE]`. A failure after the stream started becomes a frame holding
// the error object, then `data: [DONE]`. When the client goes away, the producer is still run to
// its end (drain.ts): it finishes reading the node and bills.
import { drainAfterDisconnect } from "../drain";
import { GatewayError } from "../../kernel/errors";
import { errorBody, toGatewayError } from "../error-adapter";

const encoder = new TextEncoder();
const DONE = encoder.encode("data: [DONE]\n\n");

export type SseOptions = {
  /** Write `event: <type>` lines, the type read from each payload (the responses API's events). */
  named?: boolean;
  /** End with `data: [DONE]` (chat completions). */
  done?: boolean;
};

function frame(payload: string, named: boolean): Uint8Array {
  if (!named) return encoder.encode(`data: ${payload}\n\n`);
  const type = /^\{"type":"([^"]+)"/.exec(payload)?.[1] ?? "message";
  return encoder.encode(`event: ${type}\ndata: ${payload}\n\n`);
}

export function sseResponse(payloads: AsyncIterable<string>, requestId: string, options: SseOptions = {}): Response {
  const { named = false, done: withDone = true } = options;
  const iterator = payloads[Symbol.asyncIterator]();
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (cancelled) return; // the client left while we waited: drain() runs the rest
        if (done) {
          if (withDone) controller.enqueue(DONE);
          controller.close();
          return;
        }
        controller.enqueue(frame(value, named));
      } catch (err) {
        if (cancelled) return;
        const known = toGatewayError(err);
        if (!known) console.error(`[${requestId}] stream failed:`, err);
        const failure = known ?? new GatewayError({ status: 500, code: "internal_error", type: "server_error", message: `The gateway failed while streaming (request id ${requestId}).` });
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(errorBody(failure))}\n\n`));
        if (withDone) controller.enqueue(DONE);
        controller.close();
      }
    },
    cancel() {
      cancelled = true;
      drainAfterDisconnect(iterator, requestId);
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      connection: "keep-alive",
      "x-request-id": requestId,
    },
  });
}
