// HTTP helpers of the local node: JSON bodies in and out, OpenAI-shaped errors, abortable waits.
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as wait } from "node:timers/promises";

export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export type ErrorType = "invalid_request_error" | "authentication_error" | "server_error" | "rate_limit_error";

/** An error that becomes an OpenAI error body: {error: {code, message, param, type}}. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly type: ErrorType = status === 401 ? "authentication_error" : status >= 500 ? "server_error" : "invalid_request_error",
  ) {
    super(message);
  }
}

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, err: ApiError): void {
  const headers: Record<string, string> = err.status === 429 ? { "retry-after": "1" } : {};
  send(res, err.status, { error: { code: err.code, message: err.message, param: err.param, type: err.type } }, headers);
}

export function error(res: ServerResponse, status: number, code: string, message: string, param: string | null = null): void {
  sendError(res, new ApiError(status, code, message, param));
}

/** Reads and parses a JSON object body; ApiError 400/413 when it is not one. */
export async function readJson(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError(413, "request_too_large", `Request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new ApiError(400, "invalid_json", "We could not parse the JSON body of your request.");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new ApiError(400, "invalid_json", "The request body must be a JSON object.");
  }
  return body as Record<string, unknown>;
}

/** Aborts when the client goes away before the response has been fully written. */
export function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** Waits `ms`; resolves false at once (or early) when the signal aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  if (ms <= 0) return true;
  try {
    await wait(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
