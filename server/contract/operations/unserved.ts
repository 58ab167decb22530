// Paths the API reference declares but this gateway does not serve (fine-tuning, part 4.6):
// they answer 501 not_implemented after the credential is checked.
import type { KeyPermission } from "../../identity/keys/permissions";
import type { HttpMethod, UnservedOperation } from "../operation";

/** Rows of one tag, all in the permission group a restricted key needs for them. */
function unserved(tag: string, permission: KeyPermission, rows: [HttpMethod, string, string, UnservedOperation["body"]][]): UnservedOperation[] {
  return rows.map(([method, path, summary, body]) => ({ method, path, summary, tags: [tag], body, permission }));
}

export const unservedOperations: UnservedOperation[] = [];
