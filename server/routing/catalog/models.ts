// The catalog as the models endpoints show it: the list, one model's details, what an API key
// asking to delete one gets, and the catalog read straight from the database for operator tools.
import { errors } from "../../kernel/errors";
import { entriesFor, getCatalog, findModel } from "./catalog-cache";
import type { ModelDetail, ModelObject } from "./model-card";
import { db } from "../../infra/db/client";
import { modelInclude, toModelDetail, toModelObject } from "./model-row";

/** The catalog as a caller of the workspace sees it: every model, and only its own fine-tuned ones. */
export async function listModels(workspaceId: string | null): Promise<{ object: "list"; data: ModelObject[] }> {
  const catalog = await getCatalog();
  return { object: "list", data: entriesFor(catalog, workspaceId).map((e) => toModelObject(e.row, e.readyNow)) };
}

/** One model for a caller of the workspace; another workspace's fine-tuned model is 404 as an unknown id. */
export async function getModel(id: string, workspaceId: string | null): Promise<ModelDetail> {
  const entry = await findModel(id, workspaceId);
  return toModelDetail(entry.row, entry.readyNow);
}

/**
 * Models are managed by the gateway's operators (CLI, operator dashboard). An API key may not
 * delete one: it gets 404 for an unknown id and 403 for a known one.
 */
export async function deleteModelAsApiKey(id: string, workspaceId: string | null): Promise<never> {
  await findModel(id, workspaceId);
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
