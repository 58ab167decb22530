// A stored blob as a download: whole, or the one byte range the request's Range header asks for
// (206; 416 outside the blob), streamed from the store.
import { BinaryBody } from "../../kernel/binary-body";
import { GatewayError } from "../../kernel/errors";
import { blobStore } from "./blob-store";
import { parseRange } from "./byte-range";

export type BlobDownload = {
  /** The Content-Type the bytes go out with. */
  contentType: string;
  /** The name a client saves them under (Content-Disposition). */
  filename: string;
  /** What the blob is, in the 416 message ("video", "file"). */
  what: string;
  /** The error when the blob is gone (the caller's 404). */
  missing: () => Error;
};

export async function blobBody(key: string, rangeHeader: string | undefined, d: BlobDownload): Promise<BinaryBody> {
  const store = blobStore();
  const info = await store.head(key);
  if (!info) throw d.missing();
  const range = parseRange(rangeHeader, info.size);
  if (range === "unsatisfiable") {
    throw new GatewayError({
      status: 416,
      code: "range_not_satisfiable",
      param: "range",
      message: `The requested range is outside the ${d.what}'s ${info.size} bytes.`,
      detail: { contentSize: info.size },
    });
  }
  const body = await store.stream(key, range ?? undefined);
  if (!body) throw d.missing();
  return new BinaryBody(
    body,
    d.contentType,
    {
      length: range ? range.end - range.start + 1 : info.size,
      range: range ? { ...range, size: info.size } : undefined,
      filename: d.filename,
      acceptsRanges: true,
    },
    { status: range ? 206 : 200, drain: false },
  );
}
