// GET /v1/files/{file_id}/content: a file's bytes, whole or by HTTP Range, streamed from the blob
// store (never read whole into memory).
import type { CallContext } from "../identity/principal";
import { blobBody } from "../infra/storage/blob-body";
import type { BinaryBody } from "../kernel/binary-body";
import { fileNotFound, findFile } from "./find-file";
import type { FileContentRequest } from "./schema";

/**
 * The name a client saves the file under, as a Content-Disposition header can carry it: a header
 * value may not hold quotes, control characters or code points past Latin-1.
 */
const headerSafe = (filename: string) => filename.replace(/[^A-Za-z0-9._ ()-]/g, "_").slice(0, 200) || "file";

export async function fileContent(ctx: CallContext, req: FileContentRequest): Promise<BinaryBody> {
  const row = await findFile(ctx.principal.workspaceId, req.file_id);
  // One type for every file, as OpenAI answers: the bytes are the client's own, not something to render.
  return blobBody(row.blobKey, req.range, { contentType: "application/octet-stream", filename: headerSafe(row.filename), what: "file", missing: () => fileNotFound(row.id) });
}
