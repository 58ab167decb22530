// Reading a workspace's files. Every lookup names the workspace: a file of another workspace, an
// unknown id and an expired file get the same 404, so ids reveal nothing across workspaces.
import { db } from "../infra/db/client";
import { blobStore } from "../infra/storage/blob-store";
import { errors } from "../kernel/errors";
import type { FileRow } from "./file-object";

export const fileNotFound = (id: string, param: string | null = "file_id") => errors.notFound(`No such File object: ${id}`, "file_not_found", param);

/** Not expired: no expiry, or one in the future (until the sweep deletes it, an expired file is gone already). */
export const liveFile = () => ({ OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] });

/** The workspace's live file `id`, or 404 naming `param` (the field the id came in). */
export async function findFile(workspaceId: string, id: string, param = "file_id"): Promise<FileRow> {
  const row = await db.storedFile.findFirst({ where: { id, workspaceId, ...liveFile() } });
  if (!row) throw fileNotFound(id, param);
  return row;
}

/** A file's whole content (for a batch's input, say); 404 when its bytes are gone. */
export async function readFileBytes(row: FileRow): Promise<Buffer> {
  const blob = await blobStore().get(row.blobKey);
  if (!blob) throw fileNotFound(row.id);
  return blob.data;
}
