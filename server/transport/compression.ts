// Compression of the data plane's JSON answers (node/write-reply.ts; under Next.js, Next.js
// compresses, see next/v1-handler.ts): a body of COMPRESS_MIN_BYTES or more goes out brotli- or
// gzip-encoded when the client's Accept-Encoding allows it. Smaller bodies are sent as they are
// (the bytes saved would not pay for the CPU, and the hot path of small chat answers stays
// untouched). Event streams and binary answers (audio, images, video downloads) are never
// compressed: streams must reach the client event by event, and media formats are compressed
// already.
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync, type InputType } from "node:zlib";
import type { ReplyHeaders } from "./call";

/** JSON bodies from this size on are compressed for a client that accepts it. */
export const COMPRESS_MIN_BYTES = 1024;
/**
 * Below this size a body is compressed on the event loop (a few hundred µs at most), above it on
 * libuv's thread pool, so that a large answer does not hold up every other call of the process.
 */
const SYNC_MAX_BYTES = 64 * 1024;
/**
 * The fastest level of each coding: a 1.3 MB embeddings answer (64 vectors of 1536 floats) goes
 * to 42% of its size with brotli in ~8 ms of CPU, to 44% with gzip in ~11 (8 compressions at once
 * on 2 cores). Higher levels cost far more than they save: brotli's quality 4 gets to 37% in
 * ~28 ms, gzip's level 6 to 40% in ~47 ms, brotli's default quality (11) takes seconds. What it
 * costs the gateway: `npm run bench:compression` (docs/BENCHMARKS.md).
 */
const BROTLI_QUALITY = 1;
const GZIP_LEVEL = 1;
/**
 * The output block of a compression on the thread pool. zlib's default (16 KB) costs a hop back
 * to the event loop per block: a third more CPU for a 1 MB answer than in blocks of 256 KB.
 */
const ASYNC_CHUNK_BYTES = 256 * 1024;

export type Encoding = "br" | "gzip";

/** The weight (q-value) of a coding in Accept-Encoding: a number in [0, 1], 1 when not stated. */
function weight(params: string[]): number {
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== "q") continue;
    const q = Number(param.slice(eq + 1).trim());
    return Number.isFinite(q) ? Math.min(1, Math.max(0, q)) : 0;
  }
  return 1;
}

/**
 * The coding to send a compressible answer in, from the request's Accept-Encoding: the accepted
 * one (q > 0, `*` standing for those not named) of highest weight, brotli on a tie; none when
 * neither is accepted, or when the client weighs `identity` above both.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  let br = -1;
  let gz = -1;
  let any = -1;
  let identity = -1;
  for (const entry of acceptEncoding.split(",")) {
    const [name = "", ...params] = entry.split(";");
    const coding = name.trim().toLowerCase();
    if (coding === "br") br = weight(params);
    else if (coding === "gzip" || coding === "x-gzip") gz = weight(params);
    else if (coding === "*") any = weight(params);
    else if (coding === "identity") identity = weight(params);
  }
  if (br < 0) br = Math.max(any, 0);
  if (gz < 0) gz = Math.max(any, 0);
  const best = Math.max(br, gz);
  if (best <= 0 || best < identity) return undefined;
  return br >= gz ? "br" : "gzip";
}

function compress(body: InputType, bytes: number, encoding: Encoding): Buffer | Promise<Buffer> {
  const brotli = { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes } };
  const gzipOptions = { level: GZIP_LEVEL };
  if (bytes < SYNC_MAX_BYTES) return encoding === "br" ? brotliCompressSync(body, brotli) : gzipSync(body, gzipOptions);
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer) => (err ? reject(err) : resolve(out));
    if (encoding === "br") brotliCompress(body, { ...brotli, chunkSize: ASYNC_CHUNK_BYTES }, done);
    else gzip(body, { ...gzipOptions, chunkSize: ASYNC_CHUNK_BYTES }, done);
  });
}

/** A Vary header that also names Accept-Encoding (the answer's own, CORS's `Origin`, kept). */
function varyOnEncoding(vary: string | undefined): string {
  return vary ? `${vary}, Accept-Encoding` : "Accept-Encoding";
}

/**
 * A JSON answer of COMPRESS_MIN_BYTES or more (`bytes`: its length in UTF-8), as it goes out: its
 * headers with Vary, Content-Length and, when compressed, Content-Encoding; and its body. Vary is
 * set whether or not this client accepted a coding, since another's answer may be compressed.
 */
export async function encodeLargeJson(
  headers: ReplyHeaders,
  body: string,
  bytes: number,
  acceptEncoding: string | undefined,
): Promise<{ headers: ReplyHeaders; body: string | Buffer }> {
  const vary = varyOnEncoding(headers.vary);
  const encoding = negotiateEncoding(acceptEncoding);
  if (!encoding) return { headers: { ...headers, vary, "content-length": String(bytes) }, body };
  const compressed = await compress(body, bytes, encoding);
  return { headers: { ...headers, vary, "content-encoding": encoding, "content-length": String(compressed.length) }, body: compressed };
}
