// The bearer token an identity provider provisions a workspace with. One live token per
// workspace: making a new one revokes the older ones, so a token pasted into the wrong IdP is
// ended by making the next. Only its sha256 and its first characters are stored, like API keys.
import { z } from "zod";
import { recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { newId, randomBase62 } from "../../kernel/ids";
import { hashKey } from "../keys/key-secret";

const PREFIX = "scim_";
const BODY_LENGTH = 40;
const VISIBLE = 9;
const SHAPE = new RegExp(`^${PREFIX}[0-9A-Za-z]{${BODY_LENGTH}}$`);
/** lastUsedAt is written at most this often per token: a sync of thousands of calls is not thousands of writes. */
const LAST_USED_EVERY_MS = 60_000;

export const ZScimTokenView = z.object({
  id: z.string(),
  start: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type ScimTokenView = z.infer<typeof ZScimTokenView>;
export const ZNewScimToken = z.object({ id: z.string(), start: z.string(), token: z.string() });
export type NewScimToken = z.infer<typeof ZNewScimToken>;

type TokenRow = { id: string; start: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null };
const view = (t: TokenRow): ScimTokenView => ({
  id: t.id,
  start: t.start,
  created_at: t.createdAt.toISOString(),
  last_used_at: t.lastUsedAt?.toISOString() ?? null,
  revoked_at: t.revokedAt?.toISOString() ?? null,
});

/** A new token for the workspace; the older ones stop working in the same transaction. */
export async function createScimToken(workspaceId: string, actor: AuditActor): Promise<NewScimToken> {
  const token = PREFIX + randomBase62(BODY_LENGTH);
  const id = newId("scimt");
  const start = token.slice(0, VISIBLE);
  await db.$transaction(async (tx) => {
    const revoked = await tx.scimToken.updateMany({ where: { workspaceId, revokedAt: null }, data: { revokedAt: new Date() } });
    await tx.scimToken.create({ data: { id, workspaceId, hash: hashKey(token), start } });
    await recordAudit(tx, {
      workspaceId,
      actor,
      action: "scim_token.create",
      target: { type: "scim_token", id },
      changes: { start: { from: null, to: start }, revoked_older: { from: null, to: revoked.count } },
    });
  });
  return { id, start, token };
}

/** Revokes every live token of the workspace (provisioning stops until a new one is made). */
export async function revokeScimTokens(workspaceId: string, actor: AuditActor): Promise<{ revoked: number }> {
  return db.$transaction(async (tx) => {
    const live = await tx.scimToken.findMany({ where: { workspaceId, revokedAt: null }, select: { id: true } });
    if (!live.length) return { revoked: 0 };
    const revokedAt = new Date();
    await tx.scimToken.updateMany({ where: { id: { in: live.map((t) => t.id) } }, data: { revokedAt } });
    for (const t of live) {
      const changes = { revoked_at: { from: null, to: revokedAt.toISOString() } };
      await recordAudit(tx, { workspaceId, actor, action: "scim_token.revoke", target: { type: "scim_token", id: t.id }, changes });
    }
    return { revoked: live.length };
  });
}

/** The workspace's tokens, newest first (the revoked ones too, for the record). */
export async function listScimTokens(workspaceId: string): Promise<ScimTokenView[]> {
  const rows = await db.scimToken.findMany({ where: { workspaceId }, orderBy: { createdAt: "desc" }, take: 20 });
  return rows.map(view);
}

export type ScimCaller = { tokenId: string; workspaceId: string };

/** The workspace a bearer token provisions, or null for a malformed, unknown or revoked one. */
export async function verifyScimToken(token: string): Promise<ScimCaller | null> {
  if (!SHAPE.test(token)) return null;
  const row = await db.scimToken.findUnique({ where: { hash: hashKey(token) }, select: { id: true, workspaceId: true, revokedAt: true, lastUsedAt: true } });
  if (!row || row.revokedAt) return null;
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_EVERY_MS) {
    await db.scimToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } });
  }
  return { tokenId: row.id, workspaceId: row.workspaceId };
}
