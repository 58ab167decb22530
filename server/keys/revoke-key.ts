import { db } from "../db/client";
import { Channel, notify } from "../db/notify";
import { errors } from "../errors";
import { toKeyView, type KeyView } from "./key-view";

/**
 * Revokes a key. `workspaceId`, when given, scopes the lookup so a caller can only revoke keys
 * of its own workspace (an id from another workspace is answered as not found).
 * The notification makes every gateway instance drop the key from its cache on commit.
 */
export async function revokeKey(keyId: string, workspaceId?: string): Promise<KeyView> {
  return db.$transaction(async (tx) => {
    const found = await tx.apiKey.findFirst({ where: { id: keyId, ...(workspaceId ? { workspaceId } : {}) } });
    if (!found) throw errors.notFound(`No API key with id ${keyId}`, "key_not_found");
    const row = found.revokedAt
      ? found
      : await tx.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } });
    await notify(tx, Channel.keyChanged, row.hash);
    return toKeyView(row);
  });
}
