import { z } from "zod";
import { createResponse } from "../../inference/responses/create-response";
import { cancelResponse, deleteResponse, getResponse, listInputItems } from "../../inference/responses/manage-responses";
import { ZInputItemsQuery, ZResponseCreate } from "../../inference/responses/schema";
import { apiKeyProcedure, billedProcedure, router } from "../init";

const ZId = z.object({ id: z.string().min(1) });

export const responsesRouter = router({
  create: billedProcedure
    .input(ZResponseCreate)
    .mutation(({ ctx, input }) => createResponse({ principal: ctx.principal, requestId: ctx.requestId }, input)),
  get: apiKeyProcedure.input(ZId).query(({ ctx, input }) => getResponse(ctx.principal.workspaceId, input.id)),
  delete: billedProcedure.input(ZId).mutation(({ ctx, input }) => deleteResponse(ctx.principal.workspaceId, input.id)),
  cancel: billedProcedure.input(ZId).mutation(({ ctx, input }) => cancelResponse(ctx.principal.workspaceId, input.id)),
  inputItems: apiKeyProcedure.input(ZInputItemsQuery).query(({ ctx, input }) => listInputItems(ctx.principal.workspaceId, input)),
});
