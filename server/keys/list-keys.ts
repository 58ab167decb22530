import { db } from "../db/client";
import { toKeyView, type KeyView } from "./key-view";

export async function listKeys(workspaceId: string): Promise<KeyView[]> {
  const rows = await db.apiKey.findMany({ where: { workspaceId }, orderBy: { createdAt: "desc" } });
  return rows.map(toKeyView);
}
