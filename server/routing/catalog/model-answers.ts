// What the models API answers beyond one model (a model and its detail are in model-card.ts): the
// list of models, and the shape of a deletion's answer (a workspace deleting its fine-tuned model).
import { z } from "zod";
import { deletedAnswer } from "../../kernel/answer-schemas";
import { ZModelObject } from "./model-card";

/** GET /v1/models. */
export const ZModelList = z.strictObject({ object: z.literal("list"), data: z.array(ZModelObject) });

/** DELETE /v1/models/{id}. */
export const ZModelDeleted = deletedAnswer("model");
