import type { ModelRow } from "../../routing/catalog/model-row";
import { errors } from "../../kernel/errors";

/** 400 model_not_supported (param `model`) when the model is not of the type the endpoint needs. */
export function requireModelType(row: ModelRow, type: string, endpoint: string): void {
  if (row.type !== type) {
    throw errors.invalidRequest(`\`${row.id}\` is a ${row.type} model; ${endpoint} needs a ${type} model.`, "model", "model_not_supported");
  }
}
