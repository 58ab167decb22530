import { z } from "zod";
import { ZModelDetail, ZModelObject } from "../../routing/catalog/model-card";
import { deleteModelAsApiKey, getModel, listModels } from "../../routing/catalog/models";
import { apiKeyProcedure, router } from "../init";

const ZModelId = z.object({ id: z.string().min(1) });

export const modelsRouter = router({
  list: apiKeyProcedure
    .output(z.object({ object: z.literal("list"), data: z.array(ZModelObject) }))
    .query(() => listModels()),
  get: apiKeyProcedure.input(ZModelId).output(ZModelDetail).query(({ input }) => getModel(input.id)),
  delete: apiKeyProcedure.input(ZModelId).mutation(({ input }) => deleteModelAsApiKey(input.id)),
});
