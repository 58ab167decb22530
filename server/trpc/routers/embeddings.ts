import { createEmbeddings } from "../../inference/embeddings/create-embeddings";
import { ZEmbeddingsRequest } from "../../inference/embeddings/schema";
import { billedProcedure, router } from "../init";

export const embeddingsRouter = router({
  create: billedProcedure
    .input(ZEmbeddingsRequest)
    .mutation(({ ctx, input }) => createEmbeddings({ principal: ctx.principal, requestId: ctx.requestId }, input)),
});
