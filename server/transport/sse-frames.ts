// The bytes of server-sent events, shared by both hosts.
import { GatewayError } from "../kernel/errors";
import { errorBody, toGatewayError } from "./error-adapter";
import { logFor } from "../infra/telemetry/log";

const log = logFor("http");

export const DONE_FRAME = Buffer.from("data: [DONE]\n\n");

/** An event's frame: `data: <payload>`, after `event: <its type>` for named events. */
export function eventText(payload: string, named: boolean): string {
  if (!named) return `data: ${payload}\n\n`;
  const type = /^\{"type":"([^"]+)"/.exec(payload)?.[1] ?? "message";
  return `event: ${type}\ndata: ${payload}\n\n`;
}

export function eventFrame(payload: string, named: boolean): Buffer {
  return Buffer.from(eventText(payload, named));
}

/** A failure after the stream started: a frame holding the error object. */
export function errorFrame(err: unknown, requestId: string): Buffer {
  const known = toGatewayError(err);
  if (!known) log.error({ err, requestId }, "stream failed");
  const failure = known ?? new GatewayError({ status: 500, code: "internal_error", type: "server_error", message: `The gateway failed while streaming (request id ${requestId}).` });
  return Buffer.from(`data: ${JSON.stringify(errorBody(failure))}\n\n`);
}

/** What follows a stream's last event: [DONE] when the stream has one, then its trailers. */
export function endFrames(reply: { done: boolean; trailers?: string[] }): Buffer | undefined {
  const frames = reply.trailers?.length ? Buffer.from(reply.trailers.join("")) : null;
  if (!frames) return reply.done ? DONE_FRAME : undefined;
  return reply.done ? Buffer.concat([DONE_FRAME, frames]) : frames;
}
