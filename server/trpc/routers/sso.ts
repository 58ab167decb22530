// The workspace's single sign-on connection and domains, for its owners only (sso.manage).
// Domains are verified here by DNS only; an operator vouches for one with the CLI.
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { ZSsoSetInput, ZSsoShow } from "../../identity/sso/connection-schemas";
import { removeConnection, setConnection, showSso } from "../../identity/sso/connections";
import { addDomain, removeDomain, verifyDomain } from "../../identity/sso/domains";
import { configuredOrigin } from "../../identity/sso/sso-urls";
import { router, workspaceProcedure } from "../init";

const manage = workspaceProcedure("sso.manage");
const ZDomainInput = z.object({ domain: z.string().min(1).max(253) });

export const ssoRouter = router({
  /** `origin`: the address the dashboard is open at, for the URLs when the gateway has none configured (display only). */
  get: manage
    .input(z.object({ origin: z.string().url().optional() }).optional())
    .output(ZSsoShow)
    .query(({ ctx, input }) => showSso(ctx.principal.workspaceId, configuredOrigin() ?? (input?.origin ? new URL(input.origin).origin : null))),
  set: manage
    .input(ZSsoSetInput)
    .output(ZSsoShow)
    .mutation(({ ctx, input }) => setConnection(ctx.principal.workspaceId, input, userActor(ctx.user))),
  remove: manage.mutation(({ ctx }) => removeConnection(ctx.principal.workspaceId, userActor(ctx.user))),
  addDomain: manage.input(ZDomainInput).mutation(({ ctx, input }) => addDomain(ctx.principal.workspaceId, input.domain, userActor(ctx.user))),
  verifyDomain: manage.input(ZDomainInput).mutation(({ ctx, input }) => verifyDomain(ctx.principal.workspaceId, input.domain, {}, userActor(ctx.user))),
  removeDomain: manage.input(ZDomainInput).mutation(({ ctx, input }) => removeDomain(ctx.principal.workspaceId, input.domain, userActor(ctx.user))),
});
