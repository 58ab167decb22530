// The response cache of the workspace in `x-workspace-id`: its settings, readable by every member;
// changed, and its entries cleared, by owners and admins (`cache.manage`), also for one key or plan.
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { clearCache } from "../../response-cache/clear";
import { getCacheSettings, setCacheSettings, setKeyCache, setPlanCache, ZCachePatch, ZCacheSettings, ZOwnCache, ZOwnCacheView } from "../../response-cache/settings";
import { router, workspaceProcedure } from "../init";

export const cacheRouter = router({
  settings: workspaceProcedure("workspace.view")
    .output(ZCacheSettings)
    .query(({ ctx }) => getCacheSettings(ctx.principal.workspaceId)),
  setSettings: workspaceProcedure("cache.manage")
    .input(ZCachePatch)
    .output(ZCacheSettings)
    .mutation(({ ctx, input }) => setCacheSettings(ctx.principal.workspaceId, input, userActor(ctx.user))),
  /** Removes the workspace's entries, or one model's or one key's. */
  clear: workspaceProcedure("cache.manage")
    .input(z.object({ model: z.string().min(1).max(300).optional(), keyId: z.string().min(1).max(100).optional() }))
    .output(z.object({ object: z.literal("cache.cleared"), removed: z.number().int() }))
    .mutation(({ ctx, input }) => clearCache(ctx.principal.workspaceId, input, userActor(ctx.user))),
  setKeyCache: workspaceProcedure("cache.manage")
    .input(ZOwnCache.extend({ keyId: z.string().min(1) }))
    .output(ZOwnCacheView)
    .mutation(({ ctx, input: { keyId, ...patch } }) => setKeyCache(ctx.principal.workspaceId, keyId, patch, userActor(ctx.user))),
  setPlanCache: workspaceProcedure("cache.manage")
    .input(ZOwnCache.extend({ planId: z.string().min(1) }))
    .output(ZOwnCacheView)
    .mutation(({ ctx, input: { planId, ...patch } }) => setPlanCache(ctx.principal.workspaceId, planId, patch, userActor(ctx.user))),
});
