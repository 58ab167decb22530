// Blob storage: generated images (and, later, videos). The filesystem under DATA_DIR/blobs is the
// default; an S3-compatible store implements the same interface for scale-out.
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { dataDir } from "../db/data-dir";

export type Blob = { data: Buffer; contentType: string };

export interface BlobStore {
  put(key: string, data: Uint8Array, contentType: string): Promise<void>;
  /** The blob, or null when there is none under this key. */
  get(key: string): Promise<Blob | null>;
  delete(key: string): Promise<void>;
  /** Deletes the blobs under `prefix` stored longer ago than `ageMs`; returns how many. */
  deleteOlderThan(prefix: string, ageMs: number): Promise<number>;
}

/** Keys are slash-separated names of letters, digits, `_`, `-` and `.` (never `..`). */
export function isValidKey(key: string): boolean {
  return /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/.test(key) && !key.includes("..");
}

const CONTENT_TYPES: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", jpg: "image/jpeg", webp: "image/webp", mp4: "video/mp4" };

/** The filesystem store: one file per blob; the content type follows from the key's extension. */
export class FileBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private file(key: string): string {
    if (!isValidKey(key)) throw new Error(`invalid blob key: ${key}`);
    return path.join(this.root, key);
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    const file = this.file(key);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, data);
    await rename(tmp, file);
  }

  async get(key: string): Promise<Blob | null> {
    try {
      const data = await readFile(this.file(key));
      const ext = key.slice(key.lastIndexOf(".") + 1).toLowerCase();
      return { data, contentType: CONTENT_TYPES[ext] ?? "application/octet-stream" };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  async deleteOlderThan(prefix: string, ageMs: number): Promise<number> {
    const dir = this.file(prefix);
    const names = await readdir(dir).catch(() => [] as string[]);
    const cutoff = Date.now() - ageMs;
    let deleted = 0;
    for (const name of names) {
      const file = path.join(dir, name);
      const info = await stat(file).catch(() => null);
      if (info?.isFile() && info.mtimeMs < cutoff) {
        await rm(file, { force: true });
        deleted++;
      }
    }
    return deleted;
  }
}

let store: BlobStore | undefined;

export function blobStore(): BlobStore {
  store ??= new FileBlobStore(path.join(dataDir(), "blobs"));
  return store;
}
