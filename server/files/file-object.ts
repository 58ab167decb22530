// The public shape of a stored file: OpenAI's `file` object (FileObject in its SDKs).
import { z } from "zod";
import type { StoredFile } from "../generated/prisma/client";
import { unixSeconds } from "../kernel/answer-schemas";
import { OUTPUT_PURPOSES, UPLOAD_PURPOSES } from "./purposes";

/** A file as the database holds it. */
export type FileRow = StoredFile;

export const FILE_PURPOSES = [...UPLOAD_PURPOSES, ...OUTPUT_PURPOSES] as const;

export const ZFileObject = z.strictObject({
  id: z.string().describe("Starts with `file-`"),
  object: z.literal("file"),
  bytes: z.number().int(),
  created_at: unixSeconds,
  filename: z.string(),
  purpose: z.enum(FILE_PURPOSES).describe("`batch_output` (a batch's output or error file) and `fine-tune-results` (a fine-tuning job's metrics CSV) are written by the gateway"),
  expires_at: unixSeconds.optional().describe("When the file is deleted; absent: kept until deleted"),
  status: z.literal("processed").describe("Deprecated by OpenAI; always `processed` (a file is usable once its upload is answered)"),
});
export type FileObject = z.infer<typeof ZFileObject>;

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

export function toFileObject(row: FileRow): FileObject {
  return {
    id: row.id,
    object: "file",
    bytes: row.bytes,
    created_at: unix(row.createdAt),
    filename: row.filename,
    purpose: row.purpose as FileObject["purpose"],
    ...(row.expiresAt ? { expires_at: unix(row.expiresAt) } : {}),
    status: "processed",
  };
}
