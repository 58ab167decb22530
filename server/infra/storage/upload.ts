// An uploaded file as services receive it: read by the REST adapter's multipart parser.
import { z } from "zod";

export const ZUpload = z.object(
  {
    filename: z.string(),
    contentType: z.string(),
    data: z.custom<Uint8Array>((v) => v instanceof Uint8Array, "must be a file"),
  },
  { error: (issue) => (issue.input === undefined ? "is required: send it as a file part of the multipart form" : "must be a file") },
);
export type Upload = z.infer<typeof ZUpload>;
