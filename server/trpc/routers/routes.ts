// Routes (virtual models) of the workspace: every member sees them and what they did lately;
// owners and admins set and remove them. The operator's gateway-wide routes are set with the CLI.
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { listRoutes, removeRoute, setRoute } from "../../routing/routes/route-store";
import { routeFailures, routeShares } from "../../routing/routes/route-stats";
import { router, workspaceProcedure } from "../init";

/** Owners and admins, or a custom role holding `routes.manage`. */
const managerProcedure = workspaceProcedure("routes.manage");

export const routesRouter = router({
  list: workspaceProcedure("workspace.view").query(({ ctx }) => listRoutes(ctx.principal.workspaceId)),
  /** The share each target answered in the last hour, and the newest calls that fell back or failed. */
  activity: workspaceProcedure("workspace.view").query(async ({ ctx }) => {
    const [shares, failures] = await Promise.all([routeShares(ctx.principal.workspaceId), routeFailures(ctx.principal.workspaceId)]);
    return { shares, failures };
  }),
  /** Creates or replaces a route: the definition as written by hand (docs/ROUTING.md). */
  set: managerProcedure.input(z.object({ definition: z.unknown() })).mutation(({ ctx, input }) => setRoute(ctx.principal.workspaceId, input.definition, userActor(ctx.user))),
  remove: managerProcedure.input(z.object({ name: z.string().min(1).max(100) })).mutation(async ({ ctx, input }) => {
    await removeRoute(ctx.principal.workspaceId, input.name, userActor(ctx.user));
    return { name: input.name, deleted: true as const };
  }),
});
