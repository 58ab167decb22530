// Writes a dispatcher Reply on node:http, with backpressure. Streams (server-sent events, audio)
// go out as they are produced; when the client goes away, the producer is still run to its end
// (drain.ts) so that what the node produced is billed. A process that shuts down ends the event
// streams still open at its drain deadline with a server_shutting_down error frame (cutStreams).
import type { ServerResponse } from "node:http";
import type { BinaryBody } from "../../kernel/binary-body";
import { errors } from "../../kernel/errors";
import { binaryHeaders } from "../binary-headers";
import type { Reply, ReplyHeaders } from "../call";
import { COMPRESS_MIN_BYTES, encodeLargeJson } from "../compression";
import { drainAfterDisconnect } from "../drain";
import { toGatewayError } from "../error-adapter";
import { DONE_FRAME, endFrames, errorFrame, eventText } from "../sse-frames";
import { statusOf } from "../dispatch";
import { FrameBatch, whenDrained } from "./frame-batch";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("http");

/** The event streams being written, each with the function that ends it at the shutdown deadline. */
const openStreams = new Set<() => void>();

/** Ends every open event stream with a server_shutting_down error frame (and [DONE] where the stream has one). */
export function cutStreams(): number {
  const count = openStreams.size;
  for (const cut of [...openStreams]) cut();
  return count;
}

const CUT = Symbol("cut");
type Cuttable = { cut: boolean; wake?: () => void };

/**
 * The iterator's next step, or CUT once the stream is cut. The waker is replaced on every step
 * (not one promise raced with every step, whose reactions would pile up for the stream's life).
 */
function nextOrCut<T>(iterator: AsyncIterator<T>, state: Cuttable): Promise<IteratorResult<T> | typeof CUT> {
  if (state.cut) return Promise.resolve(CUT);
  return new Promise((resolve, reject) => {
    state.wake = () => resolve(CUT);
    iterator.next().then(resolve, reject);
  });
}

const uncork = (res: ServerResponse) => res.uncork();

/**
 * The answer is about to end: its telemetry ends now, and its last bytes wait for its request-log
 * row to be down in the spool (one write(2) per turn for every answer ending in it), so a process
 * killed with SIGKILL right after answering has lost no row of what it answered.
 */
async function ending(reply: Reply): Promise<void> {
  const written = reply.observation?.end(statusOf(reply));
  if (written) await written;
}

/**
 * An event stream is about to end: its row is written to the spool now, in this turn (a stream
 * ends once per call, and its last frames must not wait a turn behind its others: they go out
 * with the end, in one write).
 */
function endingStream(reply: Reply): void {
  reply.observation?.end(statusOf(reply), true);
}

/**
 * Resolves once the socket took the chunk (or the client left: false). Chunks written in one turn
 * of the event loop go out in one socket write; `now` sends the chunk (and what is corked with
 * it, the head) at once instead: node:http itself holds a response's writes until the next tick,
 * which for a stream's first event would be after every event of the same read, and the charge
 * before [DONE], were processed. The events after the first go through a FrameBatch.
 */
function write(res: ServerResponse, chunk: Uint8Array | string, now = false): Promise<boolean> | boolean {
  if (res.destroyed) return false;
  if (!now && !res.writableCorked) {
    res.cork();
    process.nextTick(uncork, res);
  }
  const taken = res.write(chunk);
  if (now) while (res.socket?.writableCorked) res.socket.uncork();
  return taken || whenDrained(res);
}

async function writeEvents(res: ServerResponse, reply: Extract<Reply, { kind: "sse" }>): Promise<void> {
  const requestId = reply.headers["x-request-id"] ?? "";
  const iterator = reply.events[Symbol.asyncIterator]();
  const batch = new FrameBatch(res);
  const endWith = (err: unknown) => {
    reply.observation?.failed(err);
    endingStream(reply);
    batch.end(reply.done ? Buffer.concat([errorFrame(err, requestId, reply.dialect), DONE_FRAME]) : errorFrame(err, requestId, reply.dialect));
  };
  const state: Cuttable = { cut: false };
  const cut = () => {
    state.cut = true;
    state.wake?.();
  };
  openStreams.add(cut);
  // The head goes out with the first event when that is ready at once (one write, not two), and
  // on its own otherwise, so the client sees the stream begin even while the node thinks.
  let flush: NodeJS.Immediate | undefined;
  let wrote = false;
  try {
    res.writeHead(200, reply.headers);
    flush = setImmediate(() => res.flushHeaders());
    for (;;) {
      let step: IteratorResult<string> | typeof CUT;
      try {
        step = await nextOrCut(iterator, state);
      } catch (err) {
        return endWith(err);
      } finally {
        clearImmediate(flush);
        flush = undefined;
      }
      if (step === CUT) {
        // The process stops: the node's call is given up (unbilled, like any stream that fails
        // mid-way) and the client told why, so it knows to retry.
        iterator.return?.()?.catch(() => undefined);
        return endWith(errors.shuttingDown());
      }
      if (step.done) {
        endingStream(reply);
        batch.end(endFrames(reply));
        return;
      }
      const frame = eventText(step.value, reply.named);
      // The first event goes out at once, with the head; the others of the same turn together.
      const taken = wrote ? batch.add(frame) : write(res, frame, true);
      if (!wrote) reply.observation?.firstByte();
      wrote = true;
      if (!(taken === true || (await taken))) {
        drainAfterDisconnect(iterator, requestId); // the client left: read the node to its end, bill it
        return;
      }
    }
  } finally {
    clearImmediate(flush);
    openStreams.delete(cut);
  }
}

/**
 * The reply's headers and the body's own. A produced stream goes out chunked; a stored file states
 * its length (Content-Length), so downloads show their progress.
 */
async function writeBinary(res: ServerResponse, reply: Extract<Reply, { kind: "binary" }>, head: boolean): Promise<void> {
  const result = reply.body;
  const status = result.options.status ?? 200;
  const body = result.body;
  const headers = { ...reply.headers, ...binaryHeaders(result) };
  if (typeof body === "string" || body instanceof Uint8Array) {
    await ending(reply);
    if (res.headersSent) return;
    res.writeHead(status, headers);
    res.end(head ? undefined : body);
    return;
  }
  const iterator = body[Symbol.asyncIterator]();
  const streamed = { ...headers, "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" };
  if (head) {
    await iterator.return?.(); // a stored file or a node's stream must not stay open
    res.writeHead(status, streamed).end();
    return;
  }
  const requestId = headers["x-request-id"] ?? "";
  res.writeHead(status, streamed);
  for (;;) {
    let step: IteratorResult<Uint8Array>;
    try {
      step = await iterator.next();
    } catch (err) {
      // Bytes already went out: all that is left is to break the connection off.
      if (!toGatewayError(err)) log.error({ err, requestId }, "binary stream failed");
      res.destroy();
      return;
    }
    if (step.done) {
      await ending(reply);
      return void res.end();
    }
    if (!(await write(res, step.value))) {
      if (result.options.drain === false) void iterator.return?.();
      else drainAfterDisconnect(iterator, requestId);
      return;
    }
  }
}

/**
 * A reply that can no longer be sent: the call was already answered (503 at the end of a
 * shutdown's drain). Its producer is stopped, not drained: nothing of it reached the client.
 */
function discard(reply: Reply): void {
  const body = reply.kind === "sse" ? reply.events : reply.kind === "binary" ? reply.body.body : null;
  if (body === null || typeof body === "string" || body instanceof Uint8Array) return;
  body[Symbol.asyncIterator]().return?.()?.catch(() => undefined);
}

/** A JSON answer of COMPRESS_MIN_BYTES or more: compressed when the client accepts it (compression.ts). */
async function writeLargeJson(res: ServerResponse, reply: Extract<Reply, { kind: "json" }>, bytes: number, head: boolean): Promise<void> {
  const out = await encodeLargeJson(reply.headers, reply.body, bytes, res.req.headers["accept-encoding"]);
  await ending(reply);
  // A large body is compressed on the thread pool: the shutdown's deadline may have answered meanwhile.
  if (res.headersSent) return;
  res.writeHead(reply.status, out.headers);
  res.end(head ? undefined : out.body);
}

export async function writeReply(res: ServerResponse, reply: Reply, head: boolean): Promise<void> {
  if (res.headersSent) return discard(reply);
  if (reply.kind !== "sse") reply.observation?.firstByte();
  switch (reply.kind) {
    case "json": {
      const bytes = Buffer.byteLength(reply.body);
      if (bytes >= COMPRESS_MIN_BYTES) return writeLargeJson(res, reply, bytes, head);
      await ending(reply);
      if (res.headersSent) return;
      res.writeHead(reply.status, { ...reply.headers, "content-length": bytes });
      res.end(head ? undefined : reply.body);
      return;
    }
    case "empty":
      await ending(reply);
      if (res.headersSent) return;
      res.writeHead(reply.status, reply.headers).end();
      return;
    case "sse":
      return writeEvents(res, reply);
    case "binary":
      return writeBinary(res, reply, head);
  }
}
