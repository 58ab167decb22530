// The files API's requests, and the list and deletion it answers with (the file object is in
// file-object.ts; the content route answers bytes).
import { z } from "zod";
import { deletedAnswer, listPage } from "../kernel/answer-schemas";
import { ZUpload } from "../infra/storage/upload";
import { ZFileObject } from "./file-object";
import { UPLOAD_PURPOSES } from "./purposes";

/** OpenAI's bounds on `expires_after[seconds]`: one hour to 30 days. */
export const EXPIRES_MIN_SECONDS = 3600;
export const EXPIRES_MAX_SECONDS = 30 * 24 * 3600;

/**
 * POST /v1/files (multipart). The SDKs send `expires_after: {anchor, seconds}` as the form fields
 * `expires_after[anchor]` and `expires_after[seconds]`, which arrive under those names.
 */
export const ZFileUpload = z
  .object({
    file: ZUpload,
    purpose: z.enum(UPLOAD_PURPOSES, {
      error: (i) =>
        i.input === undefined ? "is required" : `must be one of ${UPLOAD_PURPOSES.join(", ")} (\`batch_output\` and \`fine-tune-results\` files are written by the gateway)`,
    }),
    "expires_after[anchor]": z.literal("created_at", { error: "must be created_at, the only anchor" }).optional(),
    "expires_after[seconds]": z.coerce
      .number({ error: "must be a whole number of seconds" })
      .int("must be a whole number of seconds")
      .min(EXPIRES_MIN_SECONDS, `must be at least ${EXPIRES_MIN_SECONDS} (one hour)`)
      .max(EXPIRES_MAX_SECONDS, `must be at most ${EXPIRES_MAX_SECONDS} (30 days)`)
      .optional(),
  })
  .superRefine((v, ctx) => {
    // Both or neither: an anchor without seconds (or the reverse) is a policy half stated.
    if (v["expires_after[anchor]"] !== undefined && v["expires_after[seconds]"] === undefined) {
      ctx.addIssue({ code: "custom", path: ["expires_after[seconds]"], message: "is required with expires_after[anchor]" });
    }
    if (v["expires_after[seconds]"] !== undefined && v["expires_after[anchor]"] === undefined) {
      ctx.addIssue({ code: "custom", path: ["expires_after[anchor]"], message: "is required with expires_after[seconds] (created_at)" });
    }
  });
export type FileUpload = z.infer<typeof ZFileUpload>;

export const ZFileId = z.object({ file_id: z.string().min(1) });

/** GET /v1/files: newest first by default; `after` is the last id of the previous page. OpenAI's limit: 1 to 10,000, default 10,000. */
export const ZFileList = z.object({
  purpose: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(10_000),
  after: z.string().min(1).optional(),
  order: z.enum(["asc", "desc"]).default("desc"),
});
export type FileList = z.infer<typeof ZFileList>;

/** GET /v1/files/{file_id}/content: `range` is the request's Range header. */
export const ZFileContent = ZFileId.extend({ range: z.string().optional() });
export type FileContentRequest = z.infer<typeof ZFileContent>;

export const ZFileListPage = listPage(ZFileObject);
export const ZFileDeleted = deletedAnswer("file");
