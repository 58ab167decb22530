// Blob storage: generated images and videos. The filesystem under DATA_DIR/blobs is the default;
// an S3-compatible store (BLOB_STORE=s3) implements the same interface for scale-out.
import path from "node:path";
import { dataDir } from "../db/data-dir";
import { env } from "../env";
import { FileBlobStore } from "./fs-blob-store";
import type { BlobStore } from "./blob-types";

export { isValidKey, contentTypeOf } from "./blob-types";
export type { Blob, BlobInfo, BlobStore, ByteRange } from "./blob-types";

let store: BlobStore | undefined;

/** Sets this process's store explicitly (tests and tools that bring their own). */
export function useBlobStore(custom: BlobStore): void {
  store = custom;
}

/** A store whose module is loaded by its first call (the S3 SDK is large; most installs never use it). */
function loadedOnFirstCall(load: () => Promise<BlobStore>): BlobStore {
  let loaded: Promise<BlobStore> | undefined;
  const get = () =>
    (loaded ??= load().catch((err: unknown) => {
      loaded = undefined;
      throw err;
    }));
  return {
    put: async (key, data, contentType) => (await get()).put(key, data, contentType),
    get: async (key) => (await get()).get(key),
    head: async (key) => (await get()).head(key),
    stream: async (key, range) => (await get()).stream(key, range),
    delete: async (key) => (await get()).delete(key),
    deleteOlderThan: async (prefix, ageMs) => (await get()).deleteOlderThan(prefix, ageMs),
  };
}

export function blobStore(): BlobStore {
  store ??=
    env.BLOB_STORE === "s3"
      ? loadedOnFirstCall(async () => new (await import("./s3-blob-store")).S3BlobStore({
          bucket: env.S3_BUCKET!,
          endpoint: env.S3_ENDPOINT,
          region: env.S3_REGION,
          accessKeyId: env.S3_ACCESS_KEY_ID,
          secretAccessKey: env.S3_SECRET_ACCESS_KEY,
          forcePathStyle: env.S3_FORCE_PATH_STYLE === "true",
          prefix: env.S3_PREFIX,
        }))
      : new FileBlobStore(path.join(dataDir(), "blobs"));
  return store;
}
