import { errors } from "../errors";
import { getCatalog, type CatalogEntry } from "./catalog-cache";
import type { ModelDetail, ModelObject } from "./model-card";
import { toModelDetail, toModelObject } from "./model-row";

export async function listModels(): Promise<{ object: "list"; data: ModelObject[] }> {
  const catalog = await getCatalog();
  return { object: "list", data: [...catalog.byId.values()].map((e) => toModelObject(e.row, e.readyNow)) };
}

/** Resolves a model id against the catalog, or throws 404 model_not_found. */
export async function resolveModel(id: string): Promise<CatalogEntry> {
  const entry = (await getCatalog()).byId.get(id);
  if (!entry) throw errors.modelNotFound(id);
  return entry;
}

export async function getModel(id: string): Promise<ModelDetail> {
  const entry = await resolveModel(id);
  return toModelDetail(entry.row, entry.readyNow);
}

/**
 * Models are managed by the gateway's operators (CLI, operator dashboard). An API key may not
 * delete one: it gets 404 for an unknown id and 403 for a known one.
 */
export async function deleteModelAsApiKey(id: string): Promise<never> {
  await resolveModel(id);
  throw errors.permissionDenied(
    `Models are managed by the gateway's operators; an API key cannot delete \`${id}\`.`,
  );
}
