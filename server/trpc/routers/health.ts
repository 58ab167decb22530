import { publicProcedure, router } from "../init";

const startedAt = performance.now();

export const healthRouter = router({
  check: publicProcedure.query(() => ({ ok: true as const, uptimeMs: Math.round(performance.now() - startedAt) })),
});
