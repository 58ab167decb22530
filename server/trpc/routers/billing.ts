import { billingLedger, billingOverview, ZBillingOverview, ZLedgerInput, ZLedgerPage } from "../../ledger/billing-overview";
import { addCredits, ZAddCreditsInput } from "../../ledger/add-credits";
import { ZWorkspaceView } from "../../identity/workspaces/workspace-view";
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { creditsHelp, DEFAULT_CREDITS_HELP, setCreditsHelp, ZCreditsHelp } from "../../ledger/credits-help";
import { operatorProcedure, router, sessionProcedure, workspaceProcedure } from "../init";

export const billingRouter = router({
  overview: workspaceProcedure("billing.view")
    .output(ZBillingOverview)
    .query(({ ctx }) => billingOverview(ctx.principal.workspaceId)),
  ledger: workspaceProcedure("billing.view")
    .input(ZLedgerInput)
    .output(ZLedgerPage)
    .query(({ ctx, input }) => billingLedger(ctx.principal.workspaceId, input)),
  /**
   * Operators grant credits to any workspace (they need not be members); the workspace is named
   * by the input and must exist. The operator is recorded as the ledger entry's author.
   * A payment provider would call addCredits the same way once a payment settles.
   */
  addCredits: operatorProcedure
    .input(ZAddCreditsInput.omit({ createdById: true }))
    .output(ZWorkspaceView)
    .mutation(({ ctx, input }) => addCredits({ ...input, createdById: ctx.user.id }, userActor(ctx.user))),
  /** What the install tells its users about getting credits (the operator's text, or the default). */
  creditsHelp: sessionProcedure
    .output(z.object({ text: z.string().nullable(), defaultText: z.string() }))
    .query(async () => ({ text: await creditsHelp(), defaultText: DEFAULT_CREDITS_HELP })),
  /** Operators set that text; an empty one goes back to the default. */
  setCreditsHelp: operatorProcedure
    .input(z.object({ text: ZCreditsHelp }))
    .output(z.object({ text: z.string().nullable() }))
    .mutation(async ({ ctx, input }) => ({ text: await setCreditsHelp(input.text, userActor(ctx.user)) })),
});
