// Plans, their sessions, the identity providers a workspace trusts, and what subjects and keys
// have left of their budgets. Everyone in the workspace sees them; owners and admins change them.
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { createPlan, deletePlan, listPlans, updatePlan, ZPlanFields, ZPlanPatch } from "../../identity/plans/manage-plans";
import { ZPlanView } from "../../identity/plans/plan-view";
import { aliveSessionCounts, listSessions, revokeSession, revokeSubject, ZSessionFilter } from "../../identity/sessions/manage-sessions";
import { ZSessionView } from "../../identity/sessions/session-view";
import { addIssuer, listIssuers, removeIssuer, ZIssuerInput, ZIssuerView } from "../../identity/sessions/trusted-issuers";
import { budgetOverview, ZBudgetOverview } from "../../ledger/budget-overview";
import { router, workspaceProcedure } from "../init";

const ZId = z.object({ id: z.string().min(1) });

export const plansRouter = router({
  /** Every plan, with how many of its sessions are alive. */
  list: workspaceProcedure("workspace.view")
    .output(z.array(ZPlanView.extend({ alive_sessions: z.number().int() })))
    .query(async ({ ctx }) => {
      const [plans, alive] = await Promise.all([listPlans(ctx.principal.workspaceId), aliveSessionCounts(ctx.principal.workspaceId)]);
      return plans.map((p) => ({ ...p, alive_sessions: alive[p.id] ?? 0 }));
    }),
  create: workspaceProcedure("plans.manage")
    .input(ZPlanFields)
    .output(ZPlanView)
    .mutation(({ ctx, input }) => createPlan(ctx.principal.workspaceId, input, userActor(ctx.user))),
  update: workspaceProcedure("plans.manage")
    .input(ZPlanPatch.extend({ id: z.string().min(1) }))
    .output(ZPlanView)
    .mutation(({ ctx, input: { id, ...patch } }) => updatePlan(ctx.principal.workspaceId, id, patch, userActor(ctx.user))),
  delete: workspaceProcedure("plans.manage")
    .input(ZId)
    .output(z.object({ object: z.literal("plan.deleted"), id: z.string(), deleted: z.literal(true) }))
    .mutation(({ ctx, input }) => deletePlan(ctx.principal.workspaceId, input.id, userActor(ctx.user))),

  sessions: workspaceProcedure("workspace.view")
    .input(ZSessionFilter)
    .output(z.array(ZSessionView))
    .query(({ ctx, input }) => listSessions(ctx.principal.workspaceId, input)),
  revokeSession: workspaceProcedure("plans.manage")
    .input(ZId)
    .output(ZSessionView)
    .mutation(({ ctx, input }) => revokeSession(ctx.principal.workspaceId, input.id, null, userActor(ctx.user))),
  revokeSubject: workspaceProcedure("plans.manage")
    .input(z.object({ subject: z.string().min(1).max(256) }))
    .output(z.object({ object: z.literal("session.revocation"), subject: z.string(), revoked: z.number().int() }))
    .mutation(({ ctx, input }) => revokeSubject(ctx.principal.workspaceId, input.subject, null, userActor(ctx.user))),

  issuers: workspaceProcedure("workspace.view")
    .output(z.array(ZIssuerView))
    .query(({ ctx }) => listIssuers(ctx.principal.workspaceId)),
  addIssuer: workspaceProcedure("plans.manage")
    .input(ZIssuerInput)
    .output(ZIssuerView)
    .mutation(({ ctx, input }) => addIssuer(ctx.principal.workspaceId, input, userActor(ctx.user))),
  removeIssuer: workspaceProcedure("plans.manage")
    .input(ZId)
    .output(z.object({ object: z.literal("trusted_issuer.deleted"), id: z.string(), deleted: z.literal(true) }))
    .mutation(({ ctx, input }) => removeIssuer(ctx.principal.workspaceId, input.id, userActor(ctx.user))),

  /** Spend caps of keys and subjects today and this month, with what is left. */
  budgets: workspaceProcedure("workspace.view")
    .output(ZBudgetOverview)
    .query(({ ctx }) => budgetOverview(ctx.principal.workspaceId)),
});
