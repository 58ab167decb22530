// The request log of the workspace in `x-workspace-id`, for every member who may see its usage
// (`workspace.view`, as the usage router): the workspace always comes from the caller's
// membership, never from the input, so a key, plan or cursor of another workspace matches nothing
// of it and its rows never reach this one.
import { listLogs, ZLogFilter, ZLogPage } from "../../request-log/list-logs";
import { router, workspaceProcedure } from "../init";

export const logsRouter = router({
  list: workspaceProcedure("workspace.view")
    .input(ZLogFilter)
    .output(ZLogPage)
    .query(({ ctx, input }) => listLogs(ctx.principal.workspaceId, input)),
});
