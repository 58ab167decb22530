// The audit log of the workspace in `x-workspace-id`: who changed what, for owners and admins
// only (the roles that manage its members, keys and plans; an event may name any of them). The
// workspace always comes from the membership, never from the input, so no filter or cursor
// reaches another workspace's events.
import { auditCsv, ZAuditCsv } from "../../audit/audit-csv";
import { listAudit, ZAuditFilter, ZAuditListInput, ZAuditPage } from "../../audit/list-audit";
import { router, workspaceProcedure } from "../init";

/** Owners and admins, or a custom role holding `audit.view`. */
const auditProcedure = workspaceProcedure("audit.view");

export const auditRouter = router({
  list: auditProcedure
    .input(ZAuditListInput)
    .output(ZAuditPage)
    .query(({ ctx, input }) => listAudit(ctx.principal.workspaceId, input)),
  exportCsv: auditProcedure
    .input(ZAuditFilter)
    .output(ZAuditCsv)
    .query(({ ctx, input }) => auditCsv(ctx.principal.workspaceId, input)),
});
