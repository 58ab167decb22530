// MCP servers (docs/MCP.md): the tool servers the workspace has at /mcp (its own, and the
// operator's gateway-wide ones), their tools, health and prices. Every member lists them (and asks
// for them to be listed again); owners and admins add, price and remove the workspace's own and
// decide whether callers may use servers that are not registered. The operator's are set with
// the CLI (--global).
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { listServers, mcpSettings } from "../../mcp/registry/registry-health";
import { addServer, removeServer, setAdhocServers, setToolPrice } from "../../mcp/registry/registry-store";
import { router, workspaceProcedure } from "../init";

/** Owners and admins, or a custom role holding `mcp.manage`. */
const managerProcedure = workspaceProcedure("mcp.manage");

const ZServer = z.string().min(1).max(100);

export const mcpRouter = router({
  /** The servers, their tools and health, and the ad-hoc servers switch; `refresh` lists each server again first. */
  list: workspaceProcedure("workspace.view")
    .input(z.object({ refresh: z.boolean().optional() }).optional())
    .query(async ({ ctx, input }) => {
      const [data, settings] = await Promise.all([listServers(ctx.principal.workspaceId, { refresh: input?.refresh }), mcpSettings(ctx.principal.workspaceId)]);
      return { object: "list" as const, data, adhoc_servers: settings.adhoc_servers };
    }),
  /** Registers a server (or replaces the workspace's of that name); the store checks it whole (ZServerInput) and names the bad field. */
  add: managerProcedure.input(z.object({ server: z.unknown() })).mutation(({ ctx, input }) => addServer(userActor(ctx.user), ctx.principal.workspaceId, input.server)),
  remove: managerProcedure.input(z.object({ server: ZServer })).mutation(({ ctx, input }) => removeServer(userActor(ctx.user), ctx.principal.workspaceId, input.server)),
  /** One tool's price per call in USD (a decimal string); null: the server's price per call again. */
  price: managerProcedure
    .input(z.object({ server: ZServer, tool: z.string().min(1).max(200), per_call: z.string().max(40).nullable() }))
    .mutation(({ ctx, input }) => setToolPrice(userActor(ctx.user), ctx.principal.workspaceId, input.server, input.tool, input.per_call)),
  adhoc: managerProcedure.input(z.object({ on: z.boolean() })).mutation(({ ctx, input }) => setAdhocServers(userActor(ctx.user), ctx.principal.workspaceId, input.on)),
});
