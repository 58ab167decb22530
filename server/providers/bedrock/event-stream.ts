// Bedrock's streams are AWS event streams (application/vnd.amazon.eventstream): binary frames
// with headers (`:message-type` event or exception, `:event-type`, `:exception-type`) and a JSON
// payload, decoded here with the AWS codec. The relay and the Messages passthrough read a body of
// server-sent events, so a stream's body is handed on as one: each frame becomes the SSE text
// the caller's `toSse` writes for it.
import { Readable } from "node:stream";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import type { UpstreamResponse } from "../http";
import { UpstreamFailure } from "../upstream-failure";

/** A message's prelude (12 bytes) and its checksum (4): no message is shorter. */
const MIN_MESSAGE = 16;

/** One decoded frame: an event (its type) or an exception (its type), with its JSON payload. */
export type StreamFrame = { exception: boolean; type: string; payload: Record<string, unknown> };

const header = (headers: Record<string, { value: unknown }>, name: string) => {
  const value = headers[name]?.value;
  return typeof value === "string" ? value : "";
};

function frameOf(message: { headers: Record<string, { value: unknown }>; body: Uint8Array }): StreamFrame {
  const kind = header(message.headers, ":message-type");
  let payload: Record<string, unknown> = {};
  try {
    payload = message.body.length ? (JSON.parse(toUtf8(message.body)) as Record<string, unknown>) : {};
  } catch {
    payload = { message: toUtf8(message.body) };
  }
  if (kind === "event") return { exception: false, type: header(message.headers, ":event-type"), payload };
  // An exception frame names its type; an error frame (`:message-type: error`) its code and message.
  if (kind === "error") return { exception: true, type: header(message.headers, ":error-code") || "error", payload: { message: header(message.headers, ":error-message") } };
  return { exception: true, type: header(message.headers, ":exception-type") || "exception", payload };
}

/** The AWS codec, loaded by the first Bedrock stream (not by every gateway process), once. */
let codecLibrary: Promise<typeof import("@smithy/eventstream-codec")> | undefined;

/**
 * The frames of a binary event stream, as its bytes arrive. The codec decodes (and checks the
 * checksums of) whole messages only: they are cut from the bytes by the total length each one
 * starts with (4 bytes, big-endian), however the network split them.
 */
export async function* framesOf(body: AsyncIterable<Uint8Array>): AsyncGenerator<StreamFrame> {
  const { EventStreamCodec } = await (codecLibrary ??= import("@smithy/eventstream-codec"));
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  let buffer = Buffer.alloc(0);
  for await (const chunk of body) {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : Buffer.from(chunk);
    while (buffer.length >= 4 && buffer.length >= buffer.readUInt32BE(0)) {
      const length = buffer.readUInt32BE(0);
      if (length < MIN_MESSAGE) throw new UpstreamFailure("protocol", "the node sent an unreadable event stream", 502);
      yield frameOf(codec.decode(buffer.subarray(0, length)));
      buffer = buffer.subarray(length);
    }
  }
}

/**
 * The node's response with its body as server-sent events. Nothing is read before the reader
 * asks; a reader that stops (or destroys the body) ends the node's body with it. A frame after an
 * exception is never read: Bedrock ends a stream with its exception.
 */
export function asSse(res: UpstreamResponse, toSse: (frame: StreamFrame) => string): UpstreamResponse {
  const source = res.body;
  async function* text(): AsyncGenerator<Buffer> {
    try {
      for await (const frame of framesOf(source)) {
        yield Buffer.from(toSse(frame));
        if (frame.exception) return;
      }
    } finally {
      if (!source.destroyed) source.on("error", () => undefined).destroy();
    }
  }
  const body = Readable.from(text(), { objectMode: false }) as unknown as UpstreamResponse["body"];
  return { status: res.status, headers: { ...res.headers, "content-type": "text/event-stream" }, body };
}
