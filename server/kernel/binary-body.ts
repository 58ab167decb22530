/**
 * A non-JSON answer a service returns: audio bytes as the node sends them, a transcript as text,
 * a stored image or video. The HTTP layer writes `body` as it is produced, with `contentType`. A
 * failure after the first byte can only break the connection off (there is no error frame in audio).
 */
export class BinaryBody {
  constructor(
    readonly body: AsyncIterable<Uint8Array> | Uint8Array | string,
    readonly contentType: string,
    readonly headers: Record<string, string> = {},
    readonly options: {
      status?: number;
      /** Read a produced body to its end after the client left (the default: a node's answer is billed). Off for stored files. */
      drain?: boolean;
    } = {},
  ) {}
}
