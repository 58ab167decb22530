import { billingLedger, billingOverview, ZBillingOverview, ZLedgerInput, ZLedgerPage } from "../../ledger/billing-overview";
import { addCredits, ZAddCreditsInput } from "../../ledger/add-credits";
import { ZWorkspaceView } from "../../identity/workspaces/workspace-view";
import { operatorProcedure, router, workspaceProcedure } from "../init";

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
    .mutation(({ ctx, input }) => addCredits({ ...input, createdById: ctx.user.id })),
});
