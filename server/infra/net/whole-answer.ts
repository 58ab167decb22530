// A request whose whole answer is wanted at once, sent with undici's dispatch and a handler that
// gathers the answer's chunks: no body stream, no promise or event per chunk (what undici's
// `request` and reading its body cost a call made on every request: a node's non-streamed
// answer, an MCP tool call). Errors before the answer's status are undici's own; one after it is
// a CutOff, which keeps the status and headers that had arrived.
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher } from "undici";

export type WholeAnswer = { status: number; headers: IncomingHttpHeaders; body: Buffer };

/**
 * The answer ended early after its status arrived: `cut` (the connection failed, a time limit),
 * `too large` (past the limit, declared or as it came), `refused` (a status the caller stops at).
 */
export class CutOff extends Error {
  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    cause: unknown,
    readonly why: "cut" | "too large" | "refused" = "cut",
  ) {
    super(`the answer ended early (${why})`, { cause });
  }
}

export type WholeLimits = {
  /** A larger answer is aborted (a CutOff, `too large`). */
  maxBytes?: number;
  /** Statuses not worth reading (a redirect the caller will not follow): aborted at once (a CutOff, `refused`). */
  refuse?: (status: number) => boolean;
};

/** Sends the request; resolves with the whole answer. */
export function wholeAnswer(dispatcher: Dispatcher, request: Dispatcher.DispatchOptions, signal?: AbortSignal, limits: WholeLimits = {}): Promise<WholeAnswer> {
  const maxBytes = limits.maxBytes ?? Infinity;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let controller: Dispatcher.DispatchController | null = null;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    let total = 0;
    let why: CutOff["why"] = "cut";
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
        if (limits.refuse?.(statusCode)) {
          why = "refused";
          c.abort(new Error("refused"));
        } else if (Number(responseHeaders["content-length"] ?? 0) > maxBytes) {
          why = "too large";
          c.abort(new Error("too large"));
        }
      },
      onResponseData(c, chunk) {
        total += chunk.byteLength;
        if (total > maxBytes) {
          why = "too large";
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
        reject(status ? new CutOff(status, headers, err, why) : err);
      },
    });
  });
}
