// The sweep of expired files: their bytes and rows. An expired file answers 404 from the moment it
// expires (find-file.ts); this frees its storage.
import { db } from "../infra/db/client";
import { blobStore } from "../infra/storage/blob-store";
import { logFor } from "../infra/telemetry/log";

const log = logFor("files");

/** Deletes up to `batch` expired files, oldest expiry first; returns how many went. Call it every minute or so. */
export async function deleteExpiredFiles(batch = 500): Promise<number> {
  const expired = await db.storedFile.findMany({
    where: { expiresAt: { lt: new Date() } },
    select: { id: true, blobKey: true },
    orderBy: { expiresAt: "asc" },
    take: batch,
  });
  let deleted = 0;
  for (const file of expired) {
    try {
      // The blob first, as a DELETE does: a failure leaves the row, and the next sweep retries.
      await blobStore().delete(file.blobKey);
      deleted += (await db.storedFile.deleteMany({ where: { id: file.id } })).count;
    } catch (err) {
      log.error({ err }, `file sweep: could not delete ${file.id}`);
    }
  }
  return deleted;
}
