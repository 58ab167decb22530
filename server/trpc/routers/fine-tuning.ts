// What the Fine-tuning page shows beside OpenAI's job object, which has no money in it: what each
// job cost (exact, once it has ended) and what is still held for it while it trains. Read through
// the fine-tuning domain's own lookup, so another workspace's id is a 404 here as on /v1.
import { z } from "zod";
import { findJob } from "../../fine-tuning/manage-jobs";
import { formatMoney } from "../../kernel/money";
import { router, workspaceProcedure } from "../init";

const ZJobMoney = z.object({
  id: z.string(),
  /** What the job was charged, in USD; null until it ends. */
  cost: z.string().nullable(),
  /** What is held from the balance for it ("0" once it has ended). */
  held: z.string(),
});

export const fineTuningMoneyRouter = router({
  /** The cost and hold of each job named (the jobs of one page of the list). */
  ofJobs: workspaceProcedure("workspace.view")
    .input(z.object({ ids: z.array(z.string().min(1).max(100)).max(100) }))
    .output(z.array(ZJobMoney))
    .query(({ ctx, input }) =>
      Promise.all(
        input.ids.map(async (id) => {
          const row = await findJob(ctx.principal.workspaceId, id);
          const ended = row.cost !== null;
          return { id: row.id, cost: ended ? formatMoney(row.cost!) : null, held: ended ? "0" : formatMoney(row.reservedAmount) };
        }),
      ),
    ),
});
