// The files API's services: upload, list, retrieve, delete. Each call works within the caller's
// workspace only (see find-file.ts).
import type { CallContext } from "../identity/principal";
import { env } from "../infra/env";
import { db } from "../infra/db/client";
import { blobStore } from "../infra/storage/blob-store";
import { errors } from "../kernel/errors";
import { toFileObject, type FileObject } from "./file-object";
import { fileNotFound, findFile, liveFile } from "./find-file";
import type { FileList, FileUpload } from "./schema";
import { storeFile } from "./store-file";

/** When an upload expires: its own `expires_after`, else OpenAI's default for `batch` files (30 days), else never. */
function expiryOf(input: FileUpload, now: Date): Date | null {
  const seconds = input["expires_after[seconds]"] ?? (input.purpose === "batch" ? env.FILES_BATCH_EXPIRES_SECONDS : 0);
  return seconds ? new Date(now.getTime() + seconds * 1000) : null;
}

export async function uploadFile(ctx: CallContext, input: FileUpload): Promise<FileObject> {
  const row = await storeFile(
    { workspaceId: ctx.principal.workspaceId, apiKeyId: ctx.principal.keyId },
    {
      // A form part without a filename still names a file: OpenAI's clients always send one.
      filename: input.file.filename || "file",
      purpose: input.purpose,
      data: Buffer.from(input.file.data.buffer, input.file.data.byteOffset, input.file.data.byteLength),
      contentType: input.file.contentType,
      expiresAt: expiryOf(input, new Date()),
    },
  );
  return toFileObject(row);
}

export async function getFile(ctx: CallContext, id: string): Promise<FileObject> {
  return toFileObject(await findFile(ctx.principal.workspaceId, id));
}

export type FileListPage = { object: "list"; data: FileObject[]; first_id: string | null; last_id: string | null; has_more: boolean };

/** The workspace's live files, of one purpose when asked, newest first unless `order` is `asc`. */
export async function listFiles(ctx: CallContext, q: FileList): Promise<FileListPage> {
  const workspaceId = ctx.principal.workspaceId;
  const direction = q.order;
  let cursor = {};
  if (q.after) {
    const after = await db.storedFile.findFirst({ where: { id: q.after, workspaceId }, select: { createdAt: true, id: true } });
    if (!after) throw errors.invalidRequest(`No such File object: ${q.after}`, "after", "invalid_value");
    const beyond = direction === "desc" ? "lt" : "gt";
    // Ties on created_at are broken by id, so a page boundary between two files of the same instant loses neither.
    cursor = { OR: [{ createdAt: { [beyond]: after.createdAt } }, { createdAt: after.createdAt, id: { [beyond]: after.id } }] };
  }
  const rows = await db.storedFile.findMany({
    where: { workspaceId, ...(q.purpose ? { purpose: q.purpose } : {}), AND: [liveFile(), cursor] },
    orderBy: [{ createdAt: direction }, { id: direction }],
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit).map(toFileObject);
  return { object: "list", data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: rows.length > q.limit };
}

export async function deleteFile(ctx: CallContext, id: string): Promise<{ id: string; object: "file"; deleted: true }> {
  const row = await findFile(ctx.principal.workspaceId, id);
  // The bytes first: a failed delete leaves the row (and the next DELETE retries), never an orphan blob.
  await blobStore().delete(row.blobKey);
  const { count } = await db.storedFile.deleteMany({ where: { id, workspaceId: row.workspaceId } });
  // Deleted meanwhile by another call (or the expiry sweep): to this caller the file was not there.
  if (count === 0) throw fileNotFound(id);
  return { id, object: "file", deleted: true };
}
