// Inviting someone: a link with a one-time token, for a role the inviter may grant (admins cannot
// invite owners). The link is returned to the inviter once; when an email is given, the invite is
// bound to it and also mailed if SMTP is configured. A mail failure never fails the invite.
import { z } from "zod";
import { ZEmail } from "../users/sign-up";
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { errors, GatewayError } from "../../kernel/errors";
import type { Role } from "../../generated/prisma/enums";
import { newId } from "../../kernel/ids";
import { sendInvitationEmail } from "../../infra/mail/send-invitation";
import { generateInvitationToken, INVITATION_TTL_MS } from "./invitations";
import { can, canManageRole, ROLES } from "./permissions";

export const ZCreateInvitationInput = z.object({
  role: z.enum(ROLES),
  /** Binds the invitation to this address (an empty string means none). */
  email: z.union([z.literal(""), ZEmail]).optional().transform((v) => v || undefined),
});
export type CreateInvitationInput = z.input<typeof ZCreateInvitationInput>;

export const ZCreatedInvitation = z.object({
  id: z.string(),
  /** The secret of the link; shown once, never stored. */
  token: z.string(),
  expiresAt: z.string(),
  emailed: z.boolean(),
  /** Why no email went out, when one was asked for. */
  emailNote: z.string().nullable(),
});
export type CreatedInvitation = z.infer<typeof ZCreatedInvitation>;

export type Inviter = { workspaceId: string; userId: string; role: Role; name: string | null; email: string };

export async function createInvitation(inviter: Inviter, input: CreateInvitationInput, actor?: AuditActor): Promise<CreatedInvitation> {
  const data = ZCreateInvitationInput.parse(input);
  if (!can(inviter.role, "members.manage")) throw errors.permissionDenied(`The ${inviter.role} role may not invite members.`);
  if (!canManageRole(inviter.role, data.role)) throw errors.permissionDenied("Only owners can invite owners.");
  const workspace = await db.workspace.findUnique({ where: { id: inviter.workspaceId }, select: { name: true } });
  if (!workspace) throw errors.notFound("No such workspace.", "workspace_not_found");
  if (data.email) {
    const existing = await db.membership.findFirst({ where: { workspaceId: inviter.workspaceId, user: { email: data.email } }, select: { id: true } });
    if (existing) throw new GatewayError({ status: 409, code: "already_member", message: `${data.email} is already a member of this workspace.`, param: "email" });
  }
  const { token, hash } = generateInvitationToken();
  // The token's hash stays out of the audit event like the token: it is what the link is checked against.
  const row = await db.$transaction(async (tx) => {
    const created = await tx.invitation.create({
      data: {
        id: newId("inv"),
        workspaceId: inviter.workspaceId,
        email: data.email ?? null,
        role: data.role,
        tokenHash: hash,
        createdById: inviter.userId,
        expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
      },
    });
    const changes = diff(null, { role: created.role, email: created.email, expires_at: created.expiresAt }, ["role", "email", "expires_at"]);
    await recordAudit(tx, { workspaceId: inviter.workspaceId, actor, action: "invitation.create", target: { type: "invitation", id: created.id }, changes });
    return created;
  });
  const mail = data.email
    ? await sendInvitationEmail({ to: data.email, token, workspaceName: workspace.name, role: data.role, inviter: inviter.name ?? inviter.email, expiresAt: row.expiresAt })
    : { emailed: false, note: null };
  return { id: row.id, token, expiresAt: row.expiresAt.toISOString(), emailed: mail.emailed, emailNote: mail.note };
}
