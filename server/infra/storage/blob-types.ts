// What every blob store offers, and the rules for keys.
import type { Readable } from "node:stream";

export type Blob = { data: Buffer; contentType: string };
export type BlobInfo = { size: number; contentType: string };
/** Inclusive byte range, as in an HTTP Range header. */
export type ByteRange = { start: number; end: number };

export interface BlobStore {
  /** Stores bytes, or a stream read to its end, under `key` (replacing what was there). */
  put(key: string, data: Uint8Array | Readable, contentType: string): Promise<void>;
  /** The whole blob, or null when there is none under this key. */
  get(key: string): Promise<Blob | null>;
  /** Size and content type, or null when there is none under this key. */
  head(key: string): Promise<BlobInfo | null>;
  /** The bytes of `range` (the whole blob when omitted) as a stream, or null when there is none. */
  stream(key: string, range?: ByteRange): Promise<Readable | null>;
  delete(key: string): Promise<void>;
  /** Deletes the blobs under `prefix` stored longer ago than `ageMs`; returns how many. */
  deleteOlderThan(prefix: string, ageMs: number): Promise<number>;
}

/** Keys are slash-separated names of letters, digits, `_`, `-` and `.` (never `..`). */
export function isValidKey(key: string): boolean {
  return /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/.test(key) && !key.includes("..");
}

const CONTENT_TYPES: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", jpg: "image/jpeg", webp: "image/webp", mp4: "video/mp4" };

/** The content type a key's extension names. */
export function contentTypeOf(key: string): string {
  return CONTENT_TYPES[key.slice(key.lastIndexOf(".") + 1).toLowerCase()] ?? "application/octet-stream";
}
