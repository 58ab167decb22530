// Operator page: what x402 payers paid (revenue per day and per model, the latest payments). Only
// gateway operators may see it: the payments are the gateway's, not a workspace's.
import { z } from "zod";
import { x402Revenue } from "../../admission/x402/revenue";
import { operatorProcedure, router } from "../init";

export const ZX402OverviewInput = z.object({ days: z.number().int().min(1).max(366).default(30) }).default({ days: 30 });

export const x402Router = router({
  overview: operatorProcedure.input(ZX402OverviewInput).query(({ input }) => x402Revenue(input.days)),
});
