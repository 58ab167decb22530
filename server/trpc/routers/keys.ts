import { z } from "zod";
import { userActor } from "../../audit/actor";
import { db } from "../../infra/db/client";
import { createKey, ZCreateKeyInput } from "../../identity/keys/create-key";
import { ZKeyView } from "../../identity/keys/key-view";
import { listKeys } from "../../identity/keys/list-keys";
import { revokeKey } from "../../identity/keys/revoke-key";
import { setKeyPlan } from "../../identity/keys/set-key-plan";
import { can } from "../../identity/workspaces/permissions";
import { errors } from "../../kernel/errors";
import { router, workspaceProcedure } from "../init";

/** What the dashboard's form sends; the workspace and creator come from the session, never the input. */
export const ZCreateKeyForm = ZCreateKeyInput.pick({ name: true, expiresAt: true, spendLimit: true, planId: true, permissions: true, models: true, tools: true });

export const keysRouter = router({
  list: workspaceProcedure("workspace.view")
    .output(z.array(ZKeyView))
    .query(({ ctx }) => listKeys(ctx.principal.workspaceId)),

  /** The secret is in this answer only; it is never stored or listed. */
  create: workspaceProcedure("keys.create")
    .input(ZCreateKeyForm)
    .output(z.object({ key: ZKeyView, secret: z.string() }))
    .mutation(({ ctx, input }) => {
      // A plan's limits replace the workspace's defaults: only those who manage keys choose it.
      if (input.planId && !can(ctx.principal, "keys.manage")) throw errors.permissionDenied("Only a role that manages keys (keys.manage: owners and admins) may put a key on a plan.");
      return db.$transaction((tx) => createKey(tx, { ...input, workspaceId: ctx.principal.workspaceId, createdById: ctx.principal.userId }, userActor(ctx.user)));
    }),

  /** Owners and admins revoke any key of the workspace; members only the keys they created. */
  revoke: workspaceProcedure("keys.create")
    .input(z.object({ id: z.string().min(1) }))
    .output(ZKeyView)
    .mutation(({ ctx, input }) => {
      const p = ctx.principal;
      return revokeKey(input.id, p.workspaceId, can(p, "keys.manage") ? undefined : p.userId, userActor(ctx.user));
    }),

  /** Owners and admins put a key on a plan (null: the workspace's defaults). */
  setPlan: workspaceProcedure("keys.manage")
    .input(z.object({ id: z.string().min(1), planId: z.string().min(1).nullable() }))
    .output(ZKeyView)
    .mutation(({ ctx, input }) => setKeyPlan(ctx.principal.workspaceId, input.id, input.planId, userActor(ctx.user))),
});
