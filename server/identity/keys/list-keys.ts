import { db } from "../../infra/db/client";
import { KEY_CREATOR, toKeyView, type KeyView } from "./key-view";

/** Every key of a workspace, newest first, with its creator; never a secret (only the hash is stored). */
export async function listKeys(workspaceId: string): Promise<KeyView[]> {
  const rows = await db.apiKey.findMany({ where: { workspaceId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], include: KEY_CREATOR });
  return rows.map(toKeyView);
}
