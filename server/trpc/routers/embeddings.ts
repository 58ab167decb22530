import { createEmbeddings } from "../../embeddings/create-embeddings";
import { ZEmbeddingsRequest } from "../../embeddings/schema";
import { apiKeyProcedure, router } from "../init";

export const embeddingsRouter = router({
  create: apiKeyProcedure
    .input(ZEmbeddingsRequest)
    .mutation(({ ctx, input }) => createEmbeddings({ principal: ctx.principal, requestId: ctx.requestId }, input)),
});
