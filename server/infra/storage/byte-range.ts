// The Range header of a download (videos, files) against a stored blob.
import type { ByteRange } from "./blob-types";

/**
 * One `bytes=` range against a blob of `size` bytes: the range, "unsatisfiable", or null to send
 * the whole (no header, several ranges, or a header that is not a byte range: RFC 9110 lets a
 * server ignore those).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | "unsatisfiable" | null {
  const m = header?.trim().match(/^bytes=(\d*)-(\d*)$/i);
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  if (m[2] !== "" && Number(m[2]) < start) return null; // an invalid range (RFC 9110 14.1.1): ignored
  if (start >= size) return "unsatisfiable";
  return { start, end: m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1) };
}
