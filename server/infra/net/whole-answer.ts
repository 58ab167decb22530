// A request whose whole answer is wanted at once, sent with undici's dispatch and a handler that
// gathers the answer's chunks: no body stream, no promise or event per chunk (what undici's
// `request` and reading its body cost a call made on every request: a node's non-streamed
// answer, an MCP tool call). Errors before the answer's status are undici's own; one after it is
// a CutOff, which keeps the status and headers that had arrived.
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher } from "undici";

export type WholeAnswer = { status: number; headers: IncomingHttpHeaders; body: Buffer };

/** The answer was cut off after its status arrived (or grew past the limit: `tooLarge`). */
export class CutOff extends Error {
  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    cause: unknown,
    readonly tooLarge = false,
  ) {
    super(tooLarge ? "the answer grew past its limit" : "the answer was cut off", { cause });
  }
}

/** Sends the request; resolves with the whole answer. `maxBytes`: a larger answer is aborted (a CutOff with `tooLarge`). */
export function wholeAnswer(dispatcher: Dispatcher, request: Dispatcher.DispatchOptions, signal?: AbortSignal, maxBytes = Infinity): Promise<WholeAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let controller: Dispatcher.DispatchController | null = null;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    let total = 0;
    let tooLarge = false;
    const chunks: Buffer[] = [];
    const onAbort = () => controller?.abort(signal!.reason as Error);
    signal?.addEventListener("abort", onAbort, { once: true });
    const settled = () => signal?.removeEventListener("abort", onAbort);
    dispatcher.dispatch(request, {
      onRequestStart(c) {
        controller = c;
        if (signal?.aborted) c.abort(signal.reason as Error);
      },
      onResponseStart(c, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
        if (Number(responseHeaders["content-length"] ?? 0) > maxBytes) {
          tooLarge = true;
          c.abort(new Error("too large"));
        }
      },
      onResponseData(c, chunk) {
        total += chunk.byteLength;
        if (total > maxBytes) {
          tooLarge = true;
          return c.abort(new Error("too large"));
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        settled();
        resolve({ status, headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
      },
      onResponseError(_c, err) {
        settled();
        reject(status ? new CutOff(status, headers, err, tooLarge) : err);
      },
    });
  });
}
