// JSON text kept in a bytea column either as it is or gzip-compressed (the response cache's
// entries, the request log's captured bodies): told apart by gzip's first two bytes, which JSON
// text never starts with.
import { promisify } from "node:util";
import { gunzip } from "node:zlib";

const gunzipAsync = promisify(gunzip);

const isGzip = (b: Uint8Array) => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;

/** The text of stored bytes, uncompressed on the thread pool when they are gzip. */
export async function storedText(bytes: Uint8Array): Promise<string> {
  return isGzip(bytes) ? (await gunzipAsync(bytes)).toString() : Buffer.from(bytes).toString();
}
