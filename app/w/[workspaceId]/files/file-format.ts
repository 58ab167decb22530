// How files read on the Files and Batches pages: sizes, times, and the dashboard's download link.
import type { FileObject } from "@/server/files/file-object";

/** The purposes a file may have, for the filter (`batch_output` and `fine-tune-results`: written by the gateway for a batch or a fine-tuning job). */
export const FILE_PURPOSES = ["batch", "batch_output", "assistants", "fine-tune", "fine-tune-results", "vision", "user_data", "evals"] as const satisfies readonly FileObject["purpose"][];

const UNITS = ["KiB", "MiB", "GiB", "TiB"];

/** "512 B", "1.5 KiB", "200 MiB": binary units, one decimal below ten. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes.toLocaleString("en-US")} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US")} ${UNITS[unit]}`;
}

/** Local date and time of Unix seconds; rendered only in the browser, after the data arrives. */
export function formatUnix(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "—";
  return new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export const formatUnixDate = (seconds: number) => new Date(seconds * 1000).toLocaleDateString(undefined, { dateStyle: "medium" });
export const formatUnixTime = (seconds: number) => new Date(seconds * 1000).toLocaleTimeString(undefined, { timeStyle: "short" });

export const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The same-origin link to a file's bytes, as the signed-in member; `download` saves it as an attachment. */
export function fileContentHref(workspaceId: string, fileId: string, download = true): string {
  const base = `/api/files/${encodeURIComponent(fileId)}/content?workspaceId=${encodeURIComponent(workspaceId)}`;
  return download ? `${base}&download=1` : base;
}
