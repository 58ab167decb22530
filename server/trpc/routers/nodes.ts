// Operator pages: the nodes behind the gateway. Only gateway operators may see or change them
// (a node's address and key are the operator's, not a workspace's).
import { z } from "zod";
import { userActor } from "../../audit/actor";
import { addNode, listNodes, removeNode, ZAddNodeInput } from "../../routing/nodes/nodes";
import { refreshHealth, updateNode, ZUpdateNodeInput } from "../../routing/nodes/update-node";
import { listUnpricedModels, setModelPrice, ZSetPriceInput } from "../../routing/catalog/set-price";
import { operatorProcedure, router } from "../init";

/** What the "Add node" form sends: a cloud node's settings, credentials and deployments (its model map) too. */
export const ZCreateNodeInput = ZAddNodeInput.pick({ name: true, url: true, wire: true, apiKey: true, city: true, country: true, weight: true, cloud: true, credentials: true, models: true });

export const nodesRouter = router({
  list: operatorProcedure.query(() => listNodes()),
  create: operatorProcedure.input(ZCreateNodeInput).mutation(async ({ ctx, input }) => {
    const added = await addNode(input, userActor(ctx.user));
    await refreshHealth(added.node.id);
    const node = (await listNodes()).find((n) => n.id === added.node.id) ?? added.node;
    return { ...added, node };
  }),
  update: operatorProcedure.input(ZUpdateNodeInput).mutation(({ ctx, input }) => updateNode(input, userActor(ctx.user))),
  remove: operatorProcedure.input(z.object({ id: z.string().min(1) })).mutation(({ ctx, input }) => removeNode(input.id, userActor(ctx.user))),
  /** Models imported from an Anthropic or Gemini node without a price: not served until priced. */
  unpricedModels: operatorProcedure.query(() => listUnpricedModels()),
  setPrice: operatorProcedure.input(ZSetPriceInput).mutation(({ ctx, input }) => setModelPrice(input, userActor(ctx.user))),
});
