// Workspaces and their members. Every rule (who may rename, invite, change roles, remove; the
// last owner) is enforced here and in the services, never only by what the dashboard shows.
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { acceptInvitation, previewInvitation, ZAcceptedInvitation, ZInvitationPreview, ZInvitationTokenInput } from "../../identity/workspaces/accept-invitation";
import { changeMemberRole, ZChangedMember, ZChangeRoleInput } from "../../identity/workspaces/change-member-role";
import { createInvitation, ZCreatedInvitation, ZCreateInvitationInput } from "../../identity/workspaces/create-invitation";
import { createWorkspace } from "../../onboarding/create-workspace";
import { gettingStarted, ZGettingStarted } from "../../identity/workspaces/getting-started";
import { listPendingInvitations, revokeInvitation, ZPendingInvitation, ZRevokeInvitationInput } from "../../identity/workspaces/invitations";
import { listMembers, ZMember } from "../../identity/workspaces/members";
import { removeMember, ZRemovedMember, ZRemoveMemberInput } from "../../identity/workspaces/remove-member";
import { renameWorkspace, ZRenamedWorkspace, ZRenameWorkspaceInput } from "../../identity/workspaces/rename-workspace";
import { workspaceSummary, ZNewWorkspaceInput, ZWorkspaceSummary } from "../../identity/workspaces/workspace-summary";
import { accountProcedure, publicProcedure, router, workspaceProcedure } from "../init";

export const workspacesRouter = router({
  /** A new workspace with the signed-in user as its owner. */
  create: accountProcedure
    .input(ZNewWorkspaceInput)
    .output(ZRenamedWorkspace)
    .mutation(async ({ ctx, input }) => {
      const { workspace } = await createWorkspace({ name: input.name, ownerUserId: ctx.user.id, signupCredits: true }, userActor(ctx.user));
      return { id: workspace.id, name: workspace.name };
    }),

  /** The getting-started checklist of the workspace in `x-workspace-id`. */
  gettingStarted: workspaceProcedure("workspace.view")
    .output(ZGettingStarted)
    .query(({ ctx }) => gettingStarted(ctx.principal.workspaceId)),

  /** The workspace in `x-workspace-id`, with the caller's role and permissions in it. */
  current: workspaceProcedure("workspace.view")
    .output(ZWorkspaceSummary)
    .query(({ ctx }) => workspaceSummary(ctx.principal)),

  rename: workspaceProcedure("workspace.rename")
    .input(ZRenameWorkspaceInput)
    .output(ZRenamedWorkspace)
    .mutation(({ ctx, input }) => renameWorkspace(ctx.principal.workspaceId, input, userActor(ctx.user))),

  members: workspaceProcedure("workspace.view")
    .output(z.array(ZMember))
    .query(({ ctx }) => listMembers(ctx.principal.workspaceId)),

  changeRole: workspaceProcedure("members.manage")
    .input(ZChangeRoleInput)
    .output(ZChangedMember)
    .mutation(({ ctx, input }) => changeMemberRole(ctx.principal.workspaceId, ctx.principal.userId, input, userActor(ctx.user))),

  /** Removing someone needs `members.manage`; removing yourself (leaving) is open to every role but the read-only viewer. */
  removeMember: workspaceProcedure("workspace.use")
    .input(ZRemoveMemberInput)
    .output(ZRemovedMember)
    .mutation(({ ctx, input }) => removeMember(ctx.principal.workspaceId, ctx.principal.userId, input, userActor(ctx.user))),

  leave: workspaceProcedure("workspace.use")
    .output(ZRemovedMember)
    .mutation(({ ctx }) => removeMember(ctx.principal.workspaceId, ctx.principal.userId, { userId: ctx.principal.userId }, userActor(ctx.user))),

  invite: workspaceProcedure("members.manage")
    .input(ZCreateInvitationInput)
    .output(ZCreatedInvitation)
    .mutation(({ ctx, input }) =>
      createInvitation({ ...ctx.principal, name: ctx.user.name, email: ctx.user.email }, input, userActor(ctx.user)),
    ),

  invitations: workspaceProcedure("members.manage")
    .output(z.array(ZPendingInvitation))
    .query(({ ctx }) => listPendingInvitations(ctx.principal.workspaceId)),

  revokeInvitation: workspaceProcedure("members.manage")
    .input(ZRevokeInvitationInput)
    .output(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => revokeInvitation(ctx.principal.workspaceId, input, userActor(ctx.user))),

  /** Public: the accept page shows the workspace and role before anyone signs in. */
  invitationPreview: publicProcedure
    .input(ZInvitationTokenInput)
    .output(ZInvitationPreview)
    .query(({ input }) => previewInvitation(input)),

  acceptInvitation: accountProcedure
    .input(ZInvitationTokenInput)
    .output(ZAcceptedInvitation)
    .mutation(({ ctx, input }) => acceptInvitation(ctx.user, input)),
});
