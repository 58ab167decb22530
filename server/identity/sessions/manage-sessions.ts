// Listing and revoking sessions. A revocation NOTIFYs every instance, whose session cache drops
// the session at once (and never keeps it past its max age when a notification is lost).
import { z } from "zod";
import { recordAudit, type AuditActor } from "../../audit/record";
import { db, type Tx } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { errors } from "../../kernel/errors";
import { toSessionView, type SessionView } from "./session-view";

export const ZSessionFilter = z.object({
  plan: z.string().min(1).optional(),
  subject: z.string().min(1).max(256).optional(),
  /** Only sessions neither expired nor revoked (default). */
  alive: z.boolean().default(true),
  limit: z.number().int().min(1).max(500).default(100),
});

export async function listSessions(workspaceId: string, filter: z.input<typeof ZSessionFilter> = {}): Promise<SessionView[]> {
  const f = ZSessionFilter.parse(filter);
  const rows = await db.planSession.findMany({
    where: {
      workspaceId,
      ...(f.plan ? { planId: f.plan } : {}),
      ...(f.subject ? { subject: f.subject } : {}),
      ...(f.alive ? { revokedAt: null, expiresAt: { gt: new Date() } } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: f.limit,
  });
  return rows.map(toSessionView);
}

/** Alive sessions per plan of a workspace. */
export async function aliveSessionCounts(workspaceId: string): Promise<Record<string, number>> {
  const rows = await db.planSession.groupBy({
    by: ["planId"],
    where: { workspaceId, revokedAt: null, expiresAt: { gt: new Date() } },
    _count: { _all: true },
  });
  return Object.fromEntries(rows.map((r) => [r.planId, r._count._all]));
}

/**
 * `planId`: only a session of that plan (a key on a plan manages only its plan's sessions, as it
 * mints only for it); another is answered as unknown.
 */
export async function revokeSession(workspaceId: string, id: string, planId: string | null = null, actor?: AuditActor): Promise<SessionView> {
  return db.$transaction(async (tx) => {
    const found = await tx.planSession.findFirst({ where: { id, workspaceId, ...(planId ? { planId } : {}) } });
    if (!found) throw errors.notFound(`No session with id ${id}.`, "session_not_found", "id");
    const row = found.revokedAt ? found : await tx.planSession.update({ where: { id }, data: { revokedAt: new Date() } });
    await notify(tx, Channel.sessionChanged, id);
    if (!found.revokedAt) {
      const changes = { revoked_at: { from: null, to: row.revokedAt!.toISOString() }, plan: { from: row.planId, to: row.planId }, subject: { from: row.subject, to: row.subject } };
      await recordAudit(tx, { workspaceId, actor, action: "session.revoke", target: { type: "session", id }, changes });
    }
    return toSessionView(row);
  });
}

/** Revokes every session of one subject in a workspace (`planId`: under that plan only); returns how many were alive. */
export async function revokeSubject(
  workspaceId: string,
  subject: string,
  planId: string | null = null,
  actor?: AuditActor,
): Promise<{ object: "session.revocation"; subject: string; revoked: number }> {
  return db.$transaction(async (tx) => {
    const alive = await tx.planSession.findMany({ where: { workspaceId, subject, revokedAt: null, ...(planId ? { planId } : {}) }, select: { id: true } });
    await revokeAlive(tx, alive);
    const changes = { revoked: { from: null, to: alive.length }, ...(planId ? { plan: { from: planId, to: planId } } : {}) };
    if (alive.length) await recordAudit(tx, { workspaceId, actor, action: "session.revoke_subject", target: { type: "subject", id: subject }, changes });
    return { object: "session.revocation", subject, revoked: alive.length };
  });
}

/**
 * Revokes, in the caller's transaction, every alive session the given keys minted: a token must not
 * outlive the revocation of the key that minted it (a leaked key is revoked with what it handed
 * out). Every instance drops them from its cache on commit.
 */
export async function revokeSessionsMintedBy(tx: Tx, keyIds: string[]): Promise<number> {
  if (!keyIds.length) return 0;
  const alive = await tx.planSession.findMany({ where: { apiKeyId: { in: keyIds }, revokedAt: null, expiresAt: { gt: new Date() } }, select: { id: true } });
  await revokeAlive(tx, alive);
  return alive.length;
}

/** Marks sessions revoked and tells every instance (one notification for all when there are many). */
async function revokeAlive(tx: Tx, alive: { id: string }[]): Promise<void> {
  if (!alive.length) return;
  await tx.planSession.updateMany({ where: { id: { in: alive.map((s) => s.id) } }, data: { revokedAt: new Date() } });
  if (alive.length > 50) await notify(tx, Channel.sessionChanged, "*");
  else for (const s of alive) await notify(tx, Channel.sessionChanged, s.id);
}
