// The files API of the node, as far as fine-tuning needs it: POST /v1/files (multipart: file,
// purpose), GET /v1/files, GET /v1/files/{id}, GET /v1/files/{id}/content, DELETE /v1/files/{id}.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, send } from "../http";
import { filesOf, readMultipart } from "../multipart";
import { page } from "./paging";
import type { FineTuneStore } from "./store";
import type { FileObject } from "./types";

const PURPOSES = new Set(["fine-tune", "batch", "assistants", "vision", "user", "evals", "fine-tune-results"]);

function found(store: FineTuneStore, id: string): FileObject {
  const file = store.files.get(id);
  if (!file) throw new ApiError(404, "file_not_found", `No such File object: ${id}`, "file_id");
  return file;
}

export async function uploadFile(req: IncomingMessage, res: ServerResponse, store: FineTuneStore): Promise<void> {
  const form = await readMultipart(req);
  const purpose = form.fields.purpose;
  if (purpose === undefined) throw new ApiError(400, "missing_required_parameter", "Missing required parameter: 'purpose'.", "purpose");
  if (typeof purpose !== "string" || !PURPOSES.has(purpose)) throw new ApiError(400, "invalid_value", `Invalid value for 'purpose': '${String(purpose)}'.`, "purpose");
  const file = filesOf(form, "file")[0];
  if (!file) throw new ApiError(400, "missing_required_parameter", "Missing required parameter: 'file'.", "file");
  send(res, 200, store.addFile(file.filename || "upload", purpose, file.data));
}

export function listFiles(req: IncomingMessage, res: ServerResponse, store: FineTuneStore): void {
  const query = new URL(req.url ?? "/", "http://node").searchParams;
  const purpose = query.get("purpose");
  const all = [...store.files.values()].filter((f) => !purpose || f.purpose === purpose).sort((a, b) => b.created_at - a.created_at);
  send(res, 200, page(all, query, 10000));
}

export function getFile(res: ServerResponse, store: FineTuneStore, id: string): void {
  send(res, 200, found(store, id));
}

export function fileContent(res: ServerResponse, store: FineTuneStore, id: string): void {
  const file = found(store, id);
  const data = store.fileData(id);
  const type = file.filename.endsWith(".csv") ? "text/csv" : file.filename.endsWith(".jsonl") ? "application/jsonl" : "application/octet-stream";
  res.writeHead(200, { "content-type": type, "content-length": data.length });
  res.end(data);
}

export function deleteFile(res: ServerResponse, store: FineTuneStore, id: string): void {
  found(store, id);
  store.deleteFile(id);
  send(res, 200, { id, object: "file", deleted: true });
}
