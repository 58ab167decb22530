// What the dispatcher sees of a request and what it answers, whichever host carries them: the
// node:http data plane or a Next.js route handler. Each host turns its own request into an
// IncomingCall and writes the Reply back in its own way (types only; dispatch.ts makes replies).
import type { Readable } from "node:stream";
import type { BinaryBody } from "../kernel/binary-body";
import type { CallOutcome } from "../kernel/call-outcome";
import type { Dialect } from "../kernel/errors";

export type IncomingCall = {
  method: string;
  /** The URL path as sent (still percent-encoded), without the query. */
  path: string;
  query: URLSearchParams;
  /** A request header, by lower-case name. */
  header: (name: string) => string | undefined;
  /** The request body as a byte stream (read at most once). */
  body: () => Readable;
  /** Scheme and host the client reached this server at (`http://localhost:3000`). */
  selfOrigin: () => string;
  /** The client's address as the host knows it (never a value the client chose); absent: unknown. */
  clientIp?: () => string;
};

export type ReplyHeaders = Record<string, string>;

export type Reply = (
  | { kind: "json"; status: number; headers: ReplyHeaders; body: string }
  | { kind: "empty"; status: number; headers: ReplyHeaders }
  /** Server-sent events: each payload goes out as `data: <payload>` as it is produced. */
  | {
      kind: "sse";
      headers: ReplyHeaders;
      events: AsyncIterable<string>;
      named: boolean;
      done: boolean;
      /** What the call produced beside its answer, read when the stream ends: its frames follow the last event (after [DONE]). */
      outcome?: CallOutcome;
      /** The API family of its events, for the frame of a failure mid-stream. */
      dialect?: Dialect;
    }
  | { kind: "binary"; headers: ReplyHeaders; body: BinaryBody }
) & {
  /** The request's telemetry (call-observation.ts), which the host ends as the answer ends (write-reply.ts; observeEnd for the rest). */
  observation?: { end(status: number, now?: boolean): Promise<void> | undefined; firstByte(): void; failed(err: unknown): void };
};
