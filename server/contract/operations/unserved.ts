// Paths the API reference declares but this gateway does not serve yet (parts 4.2 and 4.6):
// they answer 501 not_implemented after the credential is checked.
import type { KeyPermission } from "../../identity/keys/permissions";
import type { HttpMethod, UnservedOperation } from "../operation";

/** Rows of one tag, all in the permission group a restricted key needs for them. */
function unserved(tag: string, permission: KeyPermission, rows: [HttpMethod, string, string, UnservedOperation["body"]][]): UnservedOperation[] {
  return rows.map(([method, path, summary, body]) => ({ method, path, summary, tags: [tag], body, permission }));
}

export const unservedOperations: UnservedOperation[] = [
  ...unserved("Conversations", "text", [
    ["POST", "/v1/conversations", "Create a conversation", "json"],
    ["GET", "/v1/conversations/{id}", "Retrieve a conversation", "none"],
    ["POST", "/v1/conversations/{id}", "Update a conversation", "json"],
    ["DELETE", "/v1/conversations/{id}", "Delete a conversation", "none"],
    ["GET", "/v1/conversations/{id}/items", "List conversation items", "none"],
    ["POST", "/v1/conversations/{id}/items", "Add conversation items", "json"],
  ]),
  ...unserved("Files", "files", [
    ["GET", "/v1/files", "List files", "none"],
    ["POST", "/v1/files", "Upload a file", "multipart"],
    ["GET", "/v1/files/{id}", "Retrieve a file", "none"],
    ["DELETE", "/v1/files/{id}", "Delete a file", "none"],
    ["GET", "/v1/files/{id}/content", "Download a file", "none"],
  ]),
  ...unserved("Batches", "batches", [
    ["GET", "/v1/batches", "List batches", "none"],
    ["POST", "/v1/batches", "Create a batch", "json"],
    ["GET", "/v1/batches/{id}", "Retrieve a batch", "none"],
    ["POST", "/v1/batches/{id}/cancel", "Cancel a batch", "none"],
  ]),
  ...unserved("Fine-tuning", "fine_tuning", [
    ["GET", "/v1/fine_tuning/jobs", "List fine-tuning jobs", "none"],
    ["POST", "/v1/fine_tuning/jobs", "Create a fine-tuning job", "json"],
    ["GET", "/v1/fine_tuning/jobs/{id}", "Retrieve a fine-tuning job", "none"],
    ["POST", "/v1/fine_tuning/jobs/{id}/cancel", "Cancel a fine-tuning job", "none"],
    ["GET", "/v1/fine_tuning/jobs/{id}/checkpoints", "List checkpoints", "none"],
    ["GET", "/v1/fine_tuning/jobs/{id}/events", "List events", "none"],
  ]),
  ...unserved("Moderations", "text", [["POST", "/v1/moderations", "Classify text", "json"]]),
];
