import { z } from "zod";
import { usageCsv, ZUsageCsv } from "../../ledger/usage/usage-csv";
import { usageEvents, ZUsageEventsInput, ZUsageEventsPage } from "../../ledger/usage/usage-events";
import { ZUsageFilter } from "../../ledger/usage/usage-filter";
import { usageSummary, ZUsageSummary } from "../../ledger/usage/usage-summary";
import { router, workspaceProcedure } from "../init";

// Always the workspace of the session's `x-workspace-id` membership: a key or plan id of another
// workspace in the filter matches no events. Every view takes the same filter (key, plan,
// subject, tag, UTC days); the summary may be grouped by a tag key.
export const usageRouter = router({
  summary: workspaceProcedure("workspace.view")
    .input(ZUsageFilter.extend({ groupByTag: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/).optional() }))
    .output(ZUsageSummary)
    .query(({ ctx, input: { groupByTag, ...filter } }) => usageSummary(ctx.principal.workspaceId, filter, groupByTag)),
  events: workspaceProcedure("workspace.view")
    .input(ZUsageEventsInput)
    .output(ZUsageEventsPage)
    .query(({ ctx, input }) => usageEvents(ctx.principal.workspaceId, input)),
  /** For GET /api/usage/export: the events of the filter as CSV text. */
  exportCsv: workspaceProcedure("workspace.view")
    .input(ZUsageFilter)
    .output(ZUsageCsv)
    .query(({ ctx, input }) => usageCsv(ctx.principal.workspaceId, input)),
});
