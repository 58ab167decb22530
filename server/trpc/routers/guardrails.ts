// Guardrails (docs/GUARDRAILS.md): the checks on calls' input and output that the workspace sees
// (its own, and the operator's gateway-wide ones), with where each is attached. Every member lists
// them and tries one on a text; owners and admins add, attach, detach and remove them. The
// operator's own guardrails, and their attachment to every workspace, are set with the CLI.
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { addGuardrail, attachGuardrail, listGuardrails, removeGuardrail } from "../../guardrails/guardrail-store";
import { testGuardrail } from "../../guardrails/test-guardrail";
import { router, workspaceProcedure } from "../init";

/** Owners and admins, or a custom role holding `guardrails.manage`. */
const managerProcedure = workspaceProcedure("guardrails.manage");

const ZName = z.string().min(1).max(100);
/** Where to attach: the workspace (neither), one of its plans (id or name) or one of its keys (id). */
const ZAttach = z.object({ name: ZName, plan: z.string().min(1).max(200).optional(), key: z.string().min(1).max(200).optional() });

export const guardrailsRouter = router({
  list: workspaceProcedure("workspace.view").query(({ ctx }) => listGuardrails(ctx.principal.workspaceId)),
  /** Creates or replaces (by name) a guardrail of the workspace; an http one's signing secret is answered once, when it is first added. */
  add: managerProcedure.input(z.object({ definition: z.unknown() })).mutation(({ ctx, input }) => addGuardrail(ctx.principal.workspaceId, input.definition, userActor(ctx.user))),
  attach: managerProcedure
    .input(ZAttach)
    .mutation(({ ctx, input: { name, plan, key } }) => attachGuardrail(ctx.principal.workspaceId, name, { plan, key }, userActor(ctx.user))),
  detach: managerProcedure
    .input(ZAttach)
    .mutation(({ ctx, input: { name, plan, key } }) => attachGuardrail(ctx.principal.workspaceId, name, { plan, key }, userActor(ctx.user), true)),
  remove: managerProcedure.input(z.object({ name: ZName })).mutation(async ({ ctx, input }) => {
    await removeGuardrail(ctx.principal.workspaceId, input.name, userActor(ctx.user));
    return { name: input.name, deleted: true as const };
  }),
  /**
   * One guardrail run on a text as a call's input (its output, for an output-only one): the verdict,
   * the rule, the time and the text as redacted. Every member but a viewer may: it calls no model, except a
   * moderation guardrail's model (or an injection one's classifier) and an http guardrail's service.
   */
  test: workspaceProcedure("workspace.use")
    .input(z.object({ name: ZName, text: z.string().max(100_000) }))
    .mutation(({ ctx, input }) => testGuardrail(ctx.principal.workspaceId, input.name, input.text)),
});
