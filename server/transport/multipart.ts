// multipart/form-data bodies, parsed as a stream: files are collected up to their limit and the
// upload is refused (413) the moment it goes over, without reading the rest of it.
import type { Readable } from "node:stream";
import Busboy from "@fastify/busboy";
import { GatewayError, errors } from "../kernel/errors";

export type UploadedFile = { filename: string; contentType: string; data: Buffer };
export type MultipartForm = { fields: Record<string, string | string[]>; files: Record<string, UploadedFile> };
export type MultipartSpec = {
  /** File fields read (others are skipped), each at most `maxFileBytes`. */
  files: string[];
  maxFileBytes: number;
  /** Largest text field, in bytes. */
  maxFieldBytes?: number;
};

const MAX_FIELDS = 64;

function tooLarge(field: string, limit: number): GatewayError {
  return new GatewayError({ status: 413, code: "request_too_large", param: field, message: `The file \`${field}\` exceeds the limit of ${limit} bytes.` });
}

function addField(fields: MultipartForm["fields"], name: string, value: string): void {
  // `timestamp_granularities[]` and the like: repeated fields make an array under the bare name.
  const key = name.endsWith("[]") ? name.slice(0, -2) : name;
  const prev = fields[key];
  if (name.endsWith("[]")) fields[key] = [...(Array.isArray(prev) ? prev : prev ? [prev] : []), value];
  else fields[key] = value;
}

/** Reads a multipart body: its Content-Type and Content-Length headers, and the body stream. */
export async function readMultipart(contentType: string, contentLength: string | undefined, source: Readable, spec: MultipartSpec): Promise<MultipartForm> {
  if (!/^multipart\/form-data\s*;\s*boundary=/i.test(contentType)) {
    throw errors.invalidRequest("This endpoint takes a multipart/form-data body (Content-Type: multipart/form-data; boundary=...).");
  }
  const maxFieldBytes = spec.maxFieldBytes ?? 1024 * 1024;
  const hardLimit = (spec.files.length + 1) * spec.maxFileBytes + MAX_FIELDS * maxFieldBytes;
  if (Number(contentLength ?? NaN) > hardLimit) throw tooLarge(spec.files[0] ?? "file", spec.maxFileBytes);
  const form: MultipartForm = { fields: {}, files: {} };
  return new Promise<MultipartForm>((resolve, reject) => {
    let failed = false;
    // A refused upload is answered at once; the rest of the body is read and discarded (up to a
    // bound) so that the client, still sending, gets the answer instead of a broken connection.
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      reject(err);
    };
    let received = 0;
    source.on("data", (chunk: Buffer) => {
      received += chunk.byteLength;
      if (received > hardLimit) {
        fail(tooLarge(spec.files[0] ?? "file", spec.maxFileBytes));
        source.unpipe();
        source.destroy();
      }
    });
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { "content-type": contentType },
        limits: { fileSize: spec.maxFileBytes, files: spec.files.length + 4, fields: MAX_FIELDS, fieldSize: maxFieldBytes, parts: MAX_FIELDS + 8 },
      });
    } catch {
      return reject(errors.invalidRequest("The multipart body could not be parsed."));
    }
    const pending: Promise<void>[] = [];
    // Busboy calls these from inside its parser: an exception thrown there would escape as an
    // uncaught exception and leave this promise pending forever, so every handler is guarded.
    const guarded =
      <A extends unknown[]>(handler: (...args: A) => void) =>
      (...args: A) => {
        try {
          handler(...args);
        } catch (err) {
          fail(err instanceof GatewayError ? err : errors.invalidRequest("The multipart body could not be parsed."));
        }
      };
    const unnamed = () => errors.invalidRequest('Every part of a multipart body needs a name (Content-Disposition: form-data; name="...").');
    parser.on("file", guarded((name: string | undefined, stream: Readable, filename: string | undefined, _enc: string, mimeType: string | undefined) => {
      // A body that ends inside a file part makes busboy emit `error` on that part's stream (first,
      // so that no part, not even one refused below, can emit it with nobody listening).
      stream.on("error", () => fail(errors.invalidRequest("The multipart body is malformed (a file part was cut off).", name ?? null)));
      if (!name) {
        stream.resume();
        throw unnamed();
      }
      if (!spec.files.includes(name) || form.files[name]) return void stream.resume();
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => void (failed || chunks.push(c)));
      stream.on("limit", () => fail(tooLarge(name, spec.maxFileBytes)));
      pending.push(
        new Promise<void>((done) =>
          stream.on("end", () => {
            form.files[name] = { filename: filename ?? "", contentType: mimeType ?? "application/octet-stream", data: Buffer.concat(chunks) };
            done();
          }),
        ),
      );
    }));
    parser.on("field", guarded((name: string | undefined, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
      if (!name) throw unnamed();
      if (valueTruncated) return fail(new GatewayError({ status: 413, code: "request_too_large", param: name, message: `The field \`${name}\` exceeds ${maxFieldBytes} bytes.` }));
      addField(form.fields, name, value);
    }));
    parser.on("fieldsLimit", () => fail(errors.invalidRequest(`A multipart body may carry at most ${MAX_FIELDS} fields.`)));
    parser.on("partsLimit", () => fail(errors.invalidRequest("The multipart body has too many parts.")));
    parser.on("error", () => fail(errors.invalidRequest("The multipart body is malformed.")));
    parser.on("finish", () => void Promise.all(pending).then(() => !failed && resolve(form)));
    source.on("error", () => fail(errors.invalidRequest("The multipart body could not be read.")));
    source.pipe(parser);
  });
}
