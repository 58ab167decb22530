// SCIM provisioning's settings: the workspace's token (made and shown once, or revoked) and the
// roles its SCIM groups give. Owners only (sso.manage), as single sign-on's.
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { customRoleChoices, listGroupMappings, mapGroup, ZGroupMapping, ZMapGroupInput } from "../../identity/scim/group-mapping";
import { createScimToken, listScimTokens, revokeScimTokens, ZNewScimToken, ZScimTokenView } from "../../identity/scim/scim-tokens";
import { configuredOrigin, SCIM_PATH } from "../../identity/scim/scim-urls";
import { router, workspaceProcedure } from "../init";

const manage = workspaceProcedure("sso.manage");

export const scimRouter = router({
  /** The base URL to give the IdP (null when no public origin is configured: the page uses its own) and the tokens. */
  status: manage
    .output(z.object({ base_url: z.string().nullable(), path: z.string(), tokens: z.array(ZScimTokenView) }))
    .query(async ({ ctx }) => {
      const origin = configuredOrigin();
      return { base_url: origin ? `${origin}${SCIM_PATH}` : null, path: SCIM_PATH, tokens: await listScimTokens(ctx.principal.workspaceId) };
    }),
  /** A new token, shown this once; the older ones stop working. */
  createToken: manage.output(ZNewScimToken).mutation(({ ctx }) => createScimToken(ctx.principal.workspaceId, userActor(ctx.user))),
  /** Stops provisioning: every live token is revoked. */
  revokeTokens: manage.output(z.object({ revoked: z.number().int() })).mutation(({ ctx }) => revokeScimTokens(ctx.principal.workspaceId, userActor(ctx.user))),
  /** The IdP's groups with the role each gives, and the custom roles a group may give. */
  groups: manage
    .output(z.object({ groups: z.array(ZGroupMapping), custom_roles: z.array(z.object({ id: z.string(), name: z.string() })) }))
    .query(async ({ ctx }) => ({ groups: await listGroupMappings(ctx.principal.workspaceId), custom_roles: await customRoleChoices(ctx.principal.workspaceId) })),
  /** Maps a group to a built-in role, a custom role, or nothing; its members' roles follow at once. */
  mapGroup: manage
    .input(ZMapGroupInput)
    .output(ZGroupMapping)
    .mutation(({ ctx, input }) => mapGroup(ctx.principal.workspaceId, input, userActor(ctx.user))),
});
