// The request log of the workspace in `x-workspace-id`, for every member who may see its usage
// (`workspace.view`, as the usage router): the workspace always comes from the caller's
// membership, never from the input, so a key, plan or cursor of another workspace matches nothing
// of it and its rows never reach this one. Captured bodies (what callers sent and got) and the
// capture settings are for owners and admins only (`logs.bodies`).
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { logBody, ZLogBody } from "../../request-log/capture/body-store";
import { getCaptureSettings, setCaptureSettings, setKeyCapture, ZCapturePatch, ZCaptureSettings } from "../../request-log/capture/capture-settings";
import { listLogs, ZLogFilter, ZLogPage } from "../../request-log/list-logs";
import { errors } from "../../kernel/errors";
import { router, workspaceProcedure } from "../init";

export const logsRouter = router({
  list: workspaceProcedure("workspace.view")
    .input(ZLogFilter)
    .output(ZLogPage)
    .query(({ ctx, input }) => listLogs(ctx.principal.workspaceId, input)),
  /** A captured call's request and answer (redacted, cut at the workspace's cap); 404 when none was kept. */
  body: workspaceProcedure("logs.bodies")
    .input(z.object({ requestId: z.string().min(1).max(100), createdAt: z.coerce.date() }))
    .output(ZLogBody)
    .query(async ({ ctx, input }) => {
      const body = await logBody(ctx.principal.workspaceId, input.requestId, input.createdAt);
      if (!body) throw errors.notFound(`No captured body for request ${input.requestId}`, "log_body_not_found");
      return body;
    }),
  captureSettings: workspaceProcedure("logs.bodies")
    .output(ZCaptureSettings)
    .query(({ ctx }) => getCaptureSettings(ctx.principal.workspaceId)),
  setCaptureSettings: workspaceProcedure("logs.bodies")
    .input(ZCapturePatch)
    .output(ZCaptureSettings)
    .mutation(({ ctx, input }) => setCaptureSettings(ctx.principal.workspaceId, input, userActor(ctx.user))),
  /** A key's own choice: true captures its calls, false never does, null follows the workspace. */
  setKeyCapture: workspaceProcedure("logs.bodies")
    .input(z.object({ keyId: z.string().min(1), capture: z.boolean().nullable() }))
    .output(z.object({ key_id: z.string(), capture: z.boolean().nullable() }))
    .mutation(({ ctx, input }) => setKeyCapture(ctx.principal.workspaceId, input.keyId, input.capture, userActor(ctx.user))),
});
