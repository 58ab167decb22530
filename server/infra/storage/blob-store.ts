// Blob storage: generated images and videos. The filesystem under DATA_DIR/blobs is the default;
// an S3-compatible store (BLOB_STORE=s3) implements the same interface for scale-out.
import path from "node:path";
import { dataDir } from "../db/data-dir";
import { env } from "../env";
import { FileBlobStore } from "./fs-blob-store";
import { S3BlobStore } from "./s3-blob-store";
import type { BlobStore } from "./blob-types";

export { isValidKey, contentTypeOf } from "./blob-types";
export type { Blob, BlobInfo, BlobStore, ByteRange } from "./blob-types";

let store: BlobStore | undefined;

/** Sets this process's store explicitly (tests and tools that bring their own). */
export function useBlobStore(custom: BlobStore): void {
  store = custom;
}

export function blobStore(): BlobStore {
  store ??=
    env.BLOB_STORE === "s3"
      ? new S3BlobStore({
          bucket: env.S3_BUCKET!,
          endpoint: env.S3_ENDPOINT,
          region: env.S3_REGION,
          accessKeyId: env.S3_ACCESS_KEY_ID,
          secretAccessKey: env.S3_SECRET_ACCESS_KEY,
          forcePathStyle: env.S3_FORCE_PATH_STYLE === "true",
          prefix: env.S3_PREFIX,
        })
      : new FileBlobStore(path.join(dataDir(), "blobs"));
  return store;
}
