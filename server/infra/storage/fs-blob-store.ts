// The filesystem blob store: one file per blob under a root folder; the content type follows
// from the key's extension. Writes go to a temporary file that is renamed into place.
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { contentTypeOf, isValidKey, type Blob, type BlobInfo, type BlobStore, type ByteRange } from "./blob-types";

const missing = (err: unknown) => (err as NodeJS.ErrnoException).code === "ENOENT";

export class FileBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private file(key: string): string {
    if (!isValidKey(key)) throw new Error(`invalid blob key: ${key}`);
    return path.join(this.root, key);
  }

  async put(key: string, data: Uint8Array | Readable): Promise<void> {
    const file = this.file(key);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await pipeline(data instanceof Uint8Array ? Readable.from([data]) : data, createWriteStream(tmp));
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Blob | null> {
    try {
      return { data: await readFile(this.file(key)), contentType: contentTypeOf(key) };
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  }

  async head(key: string): Promise<BlobInfo | null> {
    const info = await stat(this.file(key)).catch((err) => (missing(err) ? null : Promise.reject(err)));
    return info?.isFile() ? { size: info.size, contentType: contentTypeOf(key) } : null;
  }

  async stream(key: string, range?: ByteRange): Promise<Readable | null> {
    if (!(await this.head(key))) return null;
    return createReadStream(this.file(key), range ? { start: range.start, end: range.end } : {});
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
