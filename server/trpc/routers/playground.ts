// The playground chats through chat.createCompletion like any client. The cost of a turn is
// priced here from the usage the stream reported, by the same functions the meter bills with
// (tokenUsage, tokenCost), so the page shows the exact charge as a decimal string.
import { z } from "zod";
import { tokenCost } from "../../routing/catalog/pricing";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import { tokenUsage } from "../../inference/chat/completion-shape";
import { formatMoney } from "../../kernel/money";
import { router, workspaceProcedure } from "../init";

const count = z.number().int().min(0);

export const ZTurnCostInput = z.object({
  model: z.string().min(1),
  usage: z.object({
    prompt_tokens: count,
    completion_tokens: count,
    prompt_tokens_details: z.object({ cached_tokens: count.optional() }).nullish(),
    completion_tokens_details: z.object({ reasoning_tokens: count.optional() }).nullish(),
  }),
});

export const playgroundRouter = router({
  turnCost: workspaceProcedure("models.call")
    .input(ZTurnCostInput)
    .output(z.object({ cost: z.string() }))
    .query(async ({ ctx, input }) => {
      const { row } = await resolveModel(input.model, ctx.principal.workspaceId);
      const usage = { ...input.usage, prompt_tokens_details: input.usage.prompt_tokens_details ?? undefined, completion_tokens_details: input.usage.completion_tokens_details ?? undefined };
      return { cost: formatMoney(tokenCost(row, tokenUsage(usage))) };
    }),
});
