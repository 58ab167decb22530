// GET /v1/files/{file_id}/content: a file's bytes, whole or by HTTP Range, streamed from the blob
// store (never read whole into memory).
import type { CallContext } from "../identity/principal";
import { parseRange } from "../infra/storage/byte-range";
import { blobStore } from "../infra/storage/blob-store";
import { BinaryBody } from "../kernel/binary-body";
import { GatewayError } from "../kernel/errors";
import { fileNotFound, findFile } from "./find-file";
import type { FileContentRequest } from "./schema";

/**
 * The name a client saves the file under, as a Content-Disposition header can carry it: a header
 * value may not hold quotes, control characters or code points past Latin-1.
 */
const headerSafe = (filename: string) => filename.replace(/[^A-Za-z0-9._ ()-]/g, "_").slice(0, 200) || "file";

export async function fileContent(ctx: CallContext, req: FileContentRequest): Promise<BinaryBody> {
  const row = await findFile(ctx.principal.workspaceId, req.file_id);
  const store = blobStore();
  const info = await store.head(row.blobKey);
  if (!info) throw fileNotFound(row.id);
  const range = parseRange(req.range, info.size);
  if (range === "unsatisfiable") {
    throw new GatewayError({
      status: 416,
      code: "range_not_satisfiable",
      param: "range",
      message: `The requested range is outside the file's ${info.size} bytes.`,
      detail: { contentSize: info.size },
    });
  }
  const body = await store.stream(row.blobKey, range ?? undefined);
  if (!body) throw fileNotFound(row.id);
  return new BinaryBody(
    body,
    // One type for every file, as OpenAI answers: the bytes are the client's own, not something to render.
    "application/octet-stream",
    {
      length: range ? range.end - range.start + 1 : info.size,
      range: range ? { ...range, size: info.size } : undefined,
      filename: headerSafe(row.filename),
      acceptsRanges: true,
    },
    { status: range ? 206 : 200, drain: false },
  );
}
