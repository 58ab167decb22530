// The catalog as the models endpoints show it: the list, one model's details, what an API key
// asking to delete one gets, and the catalog read straight from the database for operator tools.
import { errors } from "../../kernel/errors";
import { getCatalog, findModel } from "./catalog-cache";
import type { ModelDetail, ModelObject } from "./model-card";
import { db } from "../../infra/db/client";
import { modelInclude, toModelDetail, toModelObject } from "./model-row";

export async function listModels(): Promise<{ object: "list"; data: ModelObject[] }> {
  const catalog = await getCatalog();
  return { object: "list", data: [...catalog.byId.values()].map((e) => toModelObject(e.row, e.readyNow)) };
}

export async function getModel(id: string): Promise<ModelDetail> {
  const entry = await findModel(id);
  return toModelDetail(entry.row, entry.readyNow);
}

/**
 * Models are managed by the gateway's operators (CLI, operator dashboard). An API key may not
 * delete one: it gets 404 for an unknown id and 403 for a known one.
 */
export async function deleteModelAsApiKey(id: string): Promise<never> {
  await findModel(id);
  throw errors.permissionDenied(
    `Models are managed by the gateway's operators; an API key cannot delete \`${id}\`.`,
  );
}

/** The catalog read straight from the database, for operator tools that run outside a server. */
export async function listModelDetailsUncached(): Promise<ModelDetail[]> {
  const [rows, ready] = await Promise.all([
    db.model.findMany({ include: modelInclude, orderBy: [{ type: "asc" }, { id: "asc" }] }),
    db.nodeModel.findMany({ where: { node: { enabled: true, status: "online" } }, select: { modelId: true } }),
  ]);
  const readyIds = new Set(ready.map((r) => r.modelId));
  return rows.map((row) => toModelDetail(row, readyIds.has(row.id)));
}
