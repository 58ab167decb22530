// Files: upload (multipart), list, retrieve, delete, download (Range supported). Free; stored per
// workspace, so x402 callers (who have none of their own) cannot use them.
import { fileContent } from "../../files/file-content";
import { ZFileObject } from "../../files/file-object";
import { deleteFile, getFile, listFiles, uploadFile } from "../../files/manage-files";
import { largestUpload } from "../../files/purposes";
import { ZFileContent, ZFileDeleted, ZFileId, ZFileList, ZFileListPage, ZFileUpload } from "../../files/schema";
import { ERROR_RESPONSES } from "../errors";
import { operation } from "../operation";

const TAGS = ["Files"] as const;

export const filesCreate = operation({
  id: "files.create",
  method: "POST",
  path: "/v1/files",
  summary: "Upload a file (multipart: `file`, `purpose`, optional `expires_after[anchor]` and `expires_after[seconds]`)",
  tags: TAGS,
  kind: "mutation",
  tier: "api_key",
  permission: "files",
  body: { kind: "multipart", files: ["file"], maxFileBytes: () => largestUpload() },
  input: ZFileUpload,
  output: ZFileObject,
  produces: { kind: "json" },
  errors: {
    413: "The file exceeds its purpose's limit (`file_too_large`: 512 MB, `batch` 200 MB by default), or the workspace's storage quota (`storage_quota_exceeded`).",
  },
  pricing: { kind: "free" },
  handler: (ctx, input) => uploadFile(ctx, input),
});

export const filesList = operation({
  id: "files.list",
  method: "GET",
  path: "/v1/files",
  summary: "List files (newest first; `purpose`, `limit`, `after`, `order`)",
  tags: TAGS,
  kind: "query",
  tier: "api_key",
  permission: "files",
  body: { kind: "none" },
  query: true,
  input: ZFileList,
  output: ZFileListPage,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: (ctx, input) => listFiles(ctx, input),
});

export const filesGet = operation({
  id: "files.get",
  method: "GET",
  path: "/v1/files/{file_id}",
  summary: "Retrieve a file",
  tags: TAGS,
  kind: "query",
  tier: "api_key",
  permission: "files",
  body: { kind: "none" },
  input: ZFileId,
  output: ZFileObject,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: (ctx, input) => getFile(ctx, input.file_id),
});

export const filesDelete = operation({
  id: "files.delete",
  method: "DELETE",
  path: "/v1/files/{file_id}",
  summary: "Delete a file and its content",
  tags: TAGS,
  kind: "mutation",
  tier: "api_key",
  permission: "files",
  body: { kind: "none" },
  input: ZFileId,
  output: ZFileDeleted,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: (ctx, input) => deleteFile(ctx, input.file_id),
});

export const filesContent = operation({
  id: "files.content",
  method: "GET",
  path: "/v1/files/{file_id}/content",
  summary: "Download a file's content (Range supported)",
  tags: TAGS,
  kind: "query",
  tier: "api_key",
  permission: "files",
  body: { kind: "none" },
  headers: { range: "range" },
  input: ZFileContent,
  produces: { kind: "binary", mediaTypes: ["application/octet-stream"] },
  errors: { 416: ERROR_RESPONSES[416].description },
  pricing: { kind: "free" },
  handler: (ctx, input) => fileContent(ctx, input),
});

// `list` before `create`: the route table keeps this order, and `Allow` on /v1/files then reads "GET, POST".
export const filesOperations = {
  list: filesList,
  create: filesCreate,
  get: filesGet,
  delete: filesDelete,
  content: filesContent,
} as const;
