// multipart/form-data bodies, parsed as a stream by @fastify/busboy with limits: each file is
// capped at MAX_UPLOAD_BYTES (413 beyond it), fields at 1 MB each.
import type { IncomingMessage } from "node:http";
import { Busboy } from "@fastify/busboy";
import { ApiError } from "./http";

export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
const MAX_FILES = 20;

export type UploadedFile = { field: string; filename: string; mimeType: string; data: Buffer };
export type Multipart = { fields: Record<string, string | string[]>; files: UploadedFile[] };

function addField(fields: Multipart["fields"], name: string, value: string): void {
  const key = name.endsWith("[]") ? name.slice(0, -2) : name;
  const prev = fields[key];
  if (prev === undefined) fields[key] = name.endsWith("[]") ? [value] : value;
  else fields[key] = Array.isArray(prev) ? [...prev, value] : [prev, value];
}

/** Reads the whole form: fields by name ("x[]" collected as array "x"), files in order. */
export function readMultipart(req: IncomingMessage, limit = MAX_UPLOAD_BYTES): Promise<Multipart> {
  const type = req.headers["content-type"] ?? "";
  if (!/^multipart\/form-data/i.test(type)) {
    return Promise.reject(new ApiError(400, "invalid_request", "This endpoint expects a multipart/form-data body.", null));
  }
  return new Promise((resolve, reject) => {
    const form: Multipart = { fields: {}, files: [] };
    let failed: ApiError | null = null;
    const fail = (err: ApiError) => {
      if (failed) return;
      failed = err;
      req.unpipe(parser);
      req.resume(); // drain what the client still sends, then answer
      reject(err);
    };
    let parser: InstanceType<typeof Busboy>;
    try {
      parser = new Busboy({ headers: req.headers as never, limits: { fileSize: limit, files: MAX_FILES, fieldSize: 1024 * 1024, fields: 100 } });
    } catch (err) {
      return reject(new ApiError(400, "invalid_request", `Malformed multipart body: ${(err as Error).message}`));
    }
    parser.on("field", (name: string, value: string) => addField(form.fields, name, value));
    parser.on("file", (field: string, stream: NodeJS.ReadableStream, filename: string, _enc: string, mimeType: string) => {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("limit", () => fail(new ApiError(413, "file_too_large", `The file '${field}' is larger than ${limit} bytes.`, field)));
      stream.on("end", () => {
        const name = field.endsWith("[]") ? field.slice(0, -2) : field;
        form.files.push({ field: name, filename: filename ?? "", mimeType: mimeType ?? "", data: Buffer.concat(chunks) });
      });
    });
    parser.on("filesLimit", () => fail(new ApiError(400, "invalid_request", `At most ${MAX_FILES} files per request.`)));
    parser.on("error", (err: Error) => fail(new ApiError(400, "invalid_request", `Malformed multipart body: ${err.message}`)));
    parser.on("finish", () => {
      if (!failed) resolve(form);
    });
    req.on("error", (err) => fail(new ApiError(400, "invalid_request", err.message)));
    req.pipe(parser);
  });
}

/** The files sent under `field` (or `field[]`). */
export function filesOf(form: Multipart, field: string): UploadedFile[] {
  return form.files.filter((f) => f.field === field);
}
