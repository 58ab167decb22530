// What a binary answer (kernel/binary-body.ts) states of its bytes, as headers, for both hosts:
// its type, its length, the part of a file a 206 carries (Content-Range), whether ranges may be
// asked for, the name to show it under (Content-Disposition) and how long a client may cache it.
import type { BinaryBody } from "../kernel/binary-body";
import type { ReplyHeaders } from "./call";

export type BinaryHeaderOptions = {
  /** Content-Disposition `attachment` (a browser saves the file) rather than `inline`. */
  attachment?: boolean;
};

export function binaryHeaders(body: BinaryBody, opts: BinaryHeaderOptions = {}): ReplyHeaders {
  const headers: ReplyHeaders = { "content-type": body.contentType };
  if (body.length !== undefined) headers["content-length"] = String(body.length);
  if (body.range) headers["content-range"] = `bytes ${body.range.start}-${body.range.end}/${body.range.size}`;
  if (body.acceptsRanges) headers["accept-ranges"] = "bytes";
  if (body.filename !== undefined) headers["content-disposition"] = `${opts.attachment ? "attachment" : "inline"}; filename="${body.filename}"`;
  if (body.maxAgeSeconds !== undefined) headers["cache-control"] = `private, max-age=${body.maxAgeSeconds}`;
  return headers;
}
