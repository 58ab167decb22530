// Inviting someone: a link with a one-time token, for a role the inviter may grant (admins cannot
// invite owners; nobody invites into a role holding permissions they lack), built-in or custom. The link is returned to the inviter once; when an email is given, the invite is
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
import { grantedStanding } from "./change-member-role";
import { can, ROLES } from "./permissions";
import { roleLabel, type Holder } from "../roles/role-rules";
import { ZRoleRef } from "../roles/role-schemas";

export const ZCreateInvitationInput = z
  .object({
    role: z.enum(ROLES).optional(),
    /** A custom role of the workspace (id or name) instead of a built-in one. */
    customRole: ZRoleRef.optional(),
    /** Binds the invitation to this address (an empty string means none). */
    email: z.union([z.literal(""), ZEmail]).optional().transform((v) => v || undefined),
  })
  .refine((v) => Boolean(v.role) !== Boolean(v.customRole), { message: "Give either a built-in role or a custom role.", path: ["role"] });
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

export type Inviter = { workspaceId: string; userId: string; role: Role; permissions?: readonly string[] | null; customRole?: { name: string } | null; name: string | null; email: string };

export async function createInvitation(inviter: Inviter, input: CreateInvitationInput, actor?: AuditActor): Promise<CreatedInvitation> {
  const data = ZCreateInvitationInput.parse(input);
  const by: Holder = { role: inviter.role, permissions: inviter.permissions ?? null, customRoleName: inviter.customRole?.name ?? null };
  if (!can(by, "members.manage")) throw errors.permissionDenied(`The ${roleLabel(by)} role may not invite members.`);
  const workspace = await db.workspace.findUnique({ where: { id: inviter.workspaceId }, select: { name: true } });
  if (!workspace) throw errors.notFound("No such workspace.", "workspace_not_found");
  if (data.email) {
    const existing = await db.membership.findFirst({ where: { workspaceId: inviter.workspaceId, user: { email: data.email } }, select: { id: true } });
    if (existing) throw new GatewayError({ status: 409, code: "already_member", message: `${data.email} is already a member of this workspace.`, param: "email" });
  }
  const { token, hash } = generateInvitationToken();
  // The token's hash stays out of the audit event like the token: it is what the link is checked against.
  const { row, roleName } = await db.$transaction(async (tx) => {
    const granted = await grantedStanding(tx, inviter.workspaceId, by, data);
    const created = await tx.invitation.create({
      data: {
        id: newId("inv"),
        workspaceId: inviter.workspaceId,
        email: data.email ?? null,
        role: granted.role,
        customRoleId: granted.customRoleId,
        tokenHash: hash,
        createdById: inviter.userId,
        expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
      },
    });
    const fields = { role: created.role, custom_role: granted.customRoleName, email: created.email, expires_at: created.expiresAt };
    const changes = diff(null, fields, ["role", "custom_role", "email", "expires_at"]);
    await recordAudit(tx, { workspaceId: inviter.workspaceId, actor, action: "invitation.create", target: { type: "invitation", id: created.id }, changes });
    return { row: created, roleName: roleLabel(granted) };
  });
  const mail = data.email
    ? await sendInvitationEmail({ to: data.email, token, workspaceName: workspace.name, role: roleName, inviter: inviter.name ?? inviter.email, expiresAt: row.expiresAt })
    : { emailed: false, note: null };
  return { id: row.id, token, expiresAt: row.expiresAt.toISOString(), emailed: mail.emailed, emailNote: mail.note };
}
