// The bytes of server-sent events, shared by both hosts.
import type { CallOutcome } from "../kernel/call-outcome";
import type { Dialect } from "../kernel/errors";
import { anthropicError, errorBody, reportable } from "./error-adapter";
import { outcomeFrames } from "./answer-headers";

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

/** A failure after the stream started: a frame holding the error object (Anthropic's: an `error` event). */
export function errorFrame(err: unknown, requestId: string, dialect: Dialect = "openai"): Buffer {
  const failure = reportable(err, requestId, true);
  if (dialect === "anthropic") return Buffer.from(`event: error\ndata: ${JSON.stringify(anthropicError(failure, requestId).body)}\n\n`);
  return Buffer.from(`data: ${JSON.stringify(errorBody(failure))}\n\n`);
}

/** What follows a stream's last event: [DONE] when the stream has one, then the frames of the call's outcome (an x402 payment receipt). */
export function endFrames(reply: { done: boolean; outcome?: CallOutcome }): Buffer | undefined {
  const text = outcomeFrames(reply.outcome);
  const frames = text ? Buffer.from(text) : null;
  if (!frames) return reply.done ? DONE_FRAME : undefined;
  return reply.done ? Buffer.concat([DONE_FRAME, frames]) : frames;
}
