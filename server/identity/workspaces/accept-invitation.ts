// Accepting an invitation, and what the accept page shows before that. A token is single use:
// it is claimed by one conditional UPDATE (acceptedAt still null, not expired) in the same
// transaction as the new membership, so two people racing with one link cannot both join.
import { z } from "zod";
import type { SessionUser } from "../users/session-user";
import { db } from "../../infra/db/client";
import { errors, GatewayError } from "../../kernel/errors";
import { hashInvitationToken, ZInvitationToken } from "./invitations";
import { ROLES } from "./permissions";

export const ZInvitationTokenInput = z.object({ token: ZInvitationToken });
export type InvitationTokenInput = z.input<typeof ZInvitationTokenInput>;

export const ZInvitationPreview = z.object({
  workspaceName: z.string(),
  role: z.enum(ROLES),
  /** The custom role's name when the invitation is for one. */
  customRole: z.string().nullable(),
  email: z.string().nullable(),
  status: z.enum(["valid", "expired", "used"]),
  expiresAt: z.string(),
});
export type InvitationPreview = z.infer<typeof ZInvitationPreview>;

export const ZAcceptedInvitation = z.object({ workspaceId: z.string(), role: z.enum(ROLES), alreadyMember: z.boolean() });
export type AcceptedInvitation = z.infer<typeof ZAcceptedInvitation>;

const unknownInvitation = () => errors.notFound("This invitation link is not valid. It may have been revoked.", "invitation_not_found", "token");
const usedInvitation = () => errors.invalidRequest("This invitation has already been used.", "token", "invitation_used");
const expiredInvitation = () => errors.invalidRequest("This invitation has expired. Ask for a new one.", "token", "invitation_expired");

async function findByToken(token: string) {
  return db.invitation.findUnique({
    where: { tokenHash: hashInvitationToken(token) },
    include: { workspace: { select: { name: true } }, customRole: { select: { name: true } } },
  });
}

/** Public: whoever holds the token may see which workspace and role it is for. */
export async function previewInvitation(input: InvitationTokenInput): Promise<InvitationPreview> {
  const { token } = ZInvitationTokenInput.parse(input);
  const inv = await findByToken(token);
  if (!inv) throw unknownInvitation();
  const status = inv.acceptedAt ? "used" : inv.expiresAt <= new Date() ? "expired" : "valid";
  return { workspaceName: inv.workspace.name, role: inv.role, customRole: inv.customRole?.name ?? null, email: inv.email, status, expiresAt: inv.expiresAt.toISOString() };
}

export async function acceptInvitation(user: SessionUser, input: InvitationTokenInput): Promise<AcceptedInvitation> {
  const { token } = ZInvitationTokenInput.parse(input);
  const inv = await findByToken(token);
  if (!inv) throw unknownInvitation();
  const existing = await db.membership.findUnique({ where: { workspaceId_userId: { workspaceId: inv.workspaceId, userId: user.id } }, select: { role: true } });
  // A member opening a link again keeps their role, and the link stays usable for its invitee.
  if (existing) return { workspaceId: inv.workspaceId, role: existing.role, alreadyMember: true };
  if (inv.acceptedAt) throw usedInvitation();
  if (inv.expiresAt <= new Date()) throw expiredInvitation();
  // An invitation sent to an address is for the owner of that address only.
  if (inv.email && inv.email.toLowerCase() !== user.email.toLowerCase()) {
    throw errors.permissionDenied(`This invitation is for ${inv.email}. Sign in with that address to accept it.`);
  }
  try {
    return await db.$transaction(async (tx) => {
      const claimed = await tx.invitation.updateMany({
        where: { id: inv.id, acceptedAt: null, expiresAt: { gt: new Date() } },
        data: { acceptedAt: new Date() },
      });
      if (claimed.count === 0) throw inv.expiresAt <= new Date() ? expiredInvitation() : usedInvitation();
      // An invitation into a custom role gives its permissions (the role column is its floor, viewer).
      await tx.membership.create({ data: { workspaceId: inv.workspaceId, userId: user.id, role: inv.role, customRoleId: inv.customRoleId } });
      return { workspaceId: inv.workspaceId, role: inv.role, alreadyMember: false };
    });
  } catch (err) {
    // Joined through another link at the same moment: the unique membership wins, this claim is rolled back.
    if (!(err instanceof GatewayError) && (err as { code?: string }).code === "P2002") {
      const now = await db.membership.findUnique({ where: { workspaceId_userId: { workspaceId: inv.workspaceId, userId: user.id } }, select: { role: true } });
      if (now) return { workspaceId: inv.workspaceId, role: now.role, alreadyMember: true };
    }
    throw err;
  }
}
