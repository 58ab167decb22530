// Invitations to a workspace: the token format and the pending list an admin manages. A token is
// a bearer secret shown once to the inviter; only its sha256 hash is stored, so a database
// leak does not hand out working invite links.
import { createHash } from "node:crypto";
import { z } from "zod";
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import { randomBase62 } from "../../kernel/ids";
import { ROLES } from "./permissions";

const TOKEN_PREFIX = "gwinv_";
const TOKEN_LENGTH = 40;
/** How long an invitation can be accepted. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

export function hashInvitationToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function generateInvitationToken(): { token: string; hash: string } {
  const token = TOKEN_PREFIX + randomBase62(TOKEN_LENGTH);
  return { token, hash: hashInvitationToken(token) };
}

export const ZInvitationToken = z.string().trim().min(1, "must not be empty").max(200);

export const ZPendingInvitation = z.object({
  id: z.string(),
  email: z.string().nullable(),
  role: z.enum(ROLES),
  /** The custom role's name when the invitation is for one. */
  customRole: z.string().nullable(),
  invitedBy: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type PendingInvitation = z.infer<typeof ZPendingInvitation>;

/** Invitations of the workspace that can still be accepted, newest first. */
export async function listPendingInvitations(workspaceId: string): Promise<PendingInvitation[]> {
  const rows = await db.invitation.findMany({
    where: { workspaceId, acceptedAt: null, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
    select: { id: true, email: true, role: true, customRole: { select: { name: true } }, createdAt: true, expiresAt: true, createdBy: { select: { name: true, email: true } } },
  });
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    customRole: r.customRole?.name ?? null,
    invitedBy: r.createdBy?.name ?? r.createdBy?.email ?? null,
    createdAt: r.createdAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
  }));
}

export const ZRevokeInvitationInput = z.object({ id: z.string().min(1) });
export type RevokeInvitationInput = z.input<typeof ZRevokeInvitationInput>;

/**
 * Deletes a pending invitation; its link stops working at once. The workspace id comes from the
 * caller's principal and is part of the filter, so an id from another workspace is "not found".
 */
export async function revokeInvitation(workspaceId: string, input: RevokeInvitationInput, actor?: AuditActor): Promise<{ id: string }> {
  const { id } = ZRevokeInvitationInput.parse(input);
  return db.$transaction(async (tx) => {
    const found = await tx.invitation.findFirst({ where: { id, workspaceId, acceptedAt: null }, select: { role: true, email: true } });
    const { count } = await tx.invitation.deleteMany({ where: { id, workspaceId, acceptedAt: null } });
    if (count === 0 || !found) throw errors.notFound("No pending invitation with this id.", "invitation_not_found", "id");
    const changes = diff(found, null, ["role", "email"]);
    await recordAudit(tx, { workspaceId, actor, action: "invitation.revoke", target: { type: "invitation", id }, changes });
    return { id };
  });
}
