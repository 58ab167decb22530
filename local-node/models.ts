// Finding the requested model in the catalog, with OpenAI's errors when it is not there.
import { MODELS } from "./catalog";
import { ApiError } from "./http";

/** The body's `model`, which must be a model of `type`; 400 when missing, 404 when unknown. */
export function requireModel(body: Record<string, unknown>, type: string, endpoint: string): string {
  const model = body.model;
  if (typeof model !== "string" || !model) throw new ApiError(400, "missing_required_parameter", "Missing required parameter: 'model'.", "model");
  const card = MODELS.find((m) => m.id === model);
  if (!card) throw new ApiError(404, "model_not_found", `The model '${model}' does not exist or you do not have access to it.`, "model");
  if (card.type !== type) {
    throw new ApiError(404, "model_not_found", `The model '${model}' is a ${String(card.type)} model and is not supported by ${endpoint}.`, "model");
  }
  return model;
}

/** The catalog card of `model`. */
export function modelCard(model: string): Record<string, unknown> | undefined {
  return MODELS.find((m) => m.id === model);
}
