import { recordAudit, type AuditActor } from "../../audit/record";
import { db, type Tx } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { errors } from "../../kernel/errors";
import { revokeSessionsMintedBy } from "../sessions/manage-sessions";
import { KEY_CREATOR, toKeyView, type KeyView } from "./key-view";

/**
 * Revokes a key. `workspaceId`, when given, scopes the lookup so a caller can only revoke keys
 * of its own workspace (an id from another workspace is answered as not found).
 * `onlyCreatedBy`, when given, limits the caller to keys they created themselves (members may
 * revoke their own keys, not their colleagues'); checked in the same transaction as the update.
 * The notification makes every gateway instance drop the key from its cache on commit; the
 * session tokens the key minted are revoked with it.
 */
export async function revokeKey(keyId: string, workspaceId?: string, onlyCreatedBy?: string, actor?: AuditActor): Promise<KeyView> {
  return db.$transaction(async (tx) => {
    const found = await tx.apiKey.findFirst({ where: { id: keyId, ...(workspaceId ? { workspaceId } : {}) }, include: KEY_CREATOR });
    if (!found) throw errors.notFound(`No API key with id ${keyId}`, "key_not_found");
    if (onlyCreatedBy !== undefined && found.createdById !== onlyCreatedBy) {
      throw errors.permissionDenied("You may revoke only the keys you created. Ask an owner or admin to revoke this one.");
    }
    const row = found.revokedAt
      ? found
      : await tx.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() }, include: KEY_CREATOR });
    if (!found.revokedAt) {
      const changes = { revoked_at: { from: null, to: row.revokedAt!.toISOString() } };
      await recordAudit(tx, { workspaceId: row.workspaceId, actor, action: "key.revoke", target: { type: "key", id: row.id }, changes });
    }
    await revokeSessionsMintedBy(tx, [keyId]);
    await notify(tx, Channel.keyChanged, row.hash);
    return toKeyView(row);
  });
}

/** Revokes, in the caller's transaction, every live key one user created in a workspace (and evicts them everywhere on commit). */
export async function revokeKeysCreatedBy(tx: Tx, workspaceId: string, userId: string): Promise<number> {
  const keys = await tx.apiKey.findMany({ where: { workspaceId, createdById: userId, revokedAt: null }, select: { id: true, hash: true } });
  if (!keys.length) return 0;
  await tx.apiKey.updateMany({ where: { id: { in: keys.map((k) => k.id) } }, data: { revokedAt: new Date() } });
  await revokeSessionsMintedBy(tx, keys.map((k) => k.id));
  for (const k of keys) await notify(tx, Channel.keyChanged, k.hash);
  return keys.length;
}
