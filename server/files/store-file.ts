// Storing a file: its bytes in the blob store, then its row, under the workspace's storage quota.
// The quota is checked again inside the insert's transaction under a per-workspace lock, so that
// concurrent uploads (on any gateway instance) cannot together pass it.
import { db, type Tx } from "../infra/db/client";
import { blobStore } from "../infra/storage/blob-store";
import { GatewayError } from "../kernel/errors";
import { randomBase62 } from "../kernel/ids";
import { FILE_PURPOSES, type FileRow } from "./file-object";
import { liveFile } from "./find-file";
import { fileLimits, maxBytesFor, type FileLimits } from "./purposes";

export type FileOwner = { workspaceId: string; apiKeyId: string | null };
export type NewFile = { filename: string; purpose: string; data: Buffer; contentType?: string; expiresAt?: Date | null };

/** OpenAI's file ids: `file-` and a random part. */
export const newFileId = (): string => `file-${randomBase62(24)}`;

/** Where a file's bytes live: under its workspace, so a workspace's blobs can be found (and removed) together. */
export const blobKeyOf = (workspaceId: string, fileId: string): string => `files/${workspaceId}/${fileId}`;

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) ? 1 : 0)} MiB`;

function tooLarge(purpose: string, size: number, limit: number): GatewayError {
  return new GatewayError({
    status: 413,
    code: "file_too_large",
    param: "file",
    message: `Files with purpose \`${purpose}\` may be at most ${mib(limit)} (${limit} bytes); this one has ${size} bytes.`,
  });
}

function overQuota(used: number, size: number, quota: number): GatewayError {
  return new GatewayError({
    status: 413,
    code: "storage_quota_exceeded",
    param: "file",
    message: `This workspace stores ${used} bytes of files of its quota of ${quota} (${mib(quota)}); a file of ${size} bytes does not fit. Delete files to make room.`,
  });
}

/** Bytes of the workspace's live files: expired ones are no longer the workspace's (the sweep deletes them). */
async function usedBytes(client: Pick<Tx, "storedFile">, workspaceId: string): Promise<number> {
  const { _sum } = await client.storedFile.aggregate({
    where: { workspaceId, ...liveFile() },
    _sum: { bytes: true },
  });
  return _sum.bytes ?? 0;
}

/**
 * Writes the blob and the row of a new file of the workspace. Throws 413 when the file is larger
 * than its purpose allows or does not fit in the workspace's quota (nothing is then kept).
 * `limits` defaults to the environment's.
 */
export async function storeFile(owner: FileOwner, f: NewFile, limits: FileLimits = fileLimits()): Promise<FileRow> {
  if (!(FILE_PURPOSES as readonly string[]).includes(f.purpose)) throw new Error(`unknown file purpose: ${f.purpose}`);
  const size = f.data.byteLength;
  const limit = maxBytesFor(limits, f.purpose);
  if (size > limit) throw tooLarge(f.purpose, size, limit);
  const quota = limits.workspaceQuotaBytes;
  // A first look without the lock, so that a file that cannot fit is refused before it is written.
  if (quota > 0) {
    const used = await usedBytes(db, owner.workspaceId);
    if (used + size > quota) throw overQuota(used, size, quota);
  }
  const id = newFileId();
  const blobKey = blobKeyOf(owner.workspaceId, id);
  const contentType = f.contentType || "application/octet-stream";
  await blobStore().put(blobKey, f.data, contentType);
  try {
    return await db.$transaction(async (tx) => {
      if (quota > 0) {
        // One upload of the workspace at a time between this lock and the commit: the sum below
        // then counts every file committed before, and the next upload counts this one.
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`gateway.files:${owner.workspaceId}`}))`;
        const used = await usedBytes(tx, owner.workspaceId);
        if (used + size > quota) throw overQuota(used, size, quota);
      }
      return tx.storedFile.create({
        data: {
          id,
          workspaceId: owner.workspaceId,
          apiKeyId: owner.apiKeyId,
          filename: f.filename,
          purpose: f.purpose,
          bytes: size,
          blobKey,
          contentType,
          expiresAt: f.expiresAt ?? null,
        },
      });
    });
  } catch (err) {
    // No row, no blob: a refused or failed insert leaves nothing behind.
    await blobStore().delete(blobKey).catch(() => undefined);
    throw err;
  }
}
