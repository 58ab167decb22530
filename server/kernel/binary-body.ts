/**
 * A non-JSON answer a service returns: audio bytes as the node sends them, a transcript as text,
 * a stored image or video. The HTTP layer writes `body` as it is produced, with `contentType`, and
 * what the service states of the bytes below as headers (server/transport/binary-headers.ts). A
 * failure after the first byte can only break the connection off (there is no error frame in audio).
 */
export class BinaryBody {
  /** Bytes of the body as sent (a stored file's size, or the size of the part sent). */
  readonly length?: number;
  /** A part of a stored file (a 206): its first and last byte, and the whole file's size. */
  readonly range?: { start: number; end: number; size: number };
  /** The name a client shows the file under. */
  readonly filename?: string;
  /** Whether a client may ask for byte ranges of it. */
  readonly acceptsRanges?: boolean;
  /** How long a client may keep it in its own (private) cache, in seconds. */
  readonly maxAgeSeconds?: number;

  constructor(
    readonly body: AsyncIterable<Uint8Array> | Uint8Array | string,
    readonly contentType: string,
    stated: Pick<BinaryBody, "length" | "range" | "filename" | "acceptsRanges" | "maxAgeSeconds"> = {},
    readonly options: {
      status?: number;
      /** Read a produced body to its end after the client left (the default: a node's answer is billed). Off for stored files. */
      drain?: boolean;
    } = {},
  ) {
    Object.assign(this, stated);
  }
}
