import { createEmbeddings } from "../../embeddings/create-embeddings";
import { ZEmbeddingsRequest } from "../../embeddings/schema";
import { billedProcedure, router } from "../init";

export const embeddingsRouter = router({
  create: billedProcedure
    .input(ZEmbeddingsRequest)
    .mutation(({ ctx, input }) => createEmbeddings({ principal: ctx.principal, requestId: ctx.requestId }, input)),
});
