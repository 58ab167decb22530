// The catalog as the models endpoints show it: the list and one model's details as a caller of a
// workspace sees them, and the catalog read straight from the database for operator tools.
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

/** The catalog read straight from the database, for operator tools that run outside a server. */
export async function listModelDetailsUncached(): Promise<ModelDetail[]> {
  const [rows, ready] = await Promise.all([
    db.model.findMany({ include: modelInclude, orderBy: [{ type: "asc" }, { id: "asc" }] }),
    db.nodeModel.findMany({ where: { node: { enabled: true, status: "online" } }, select: { modelId: true } }),
  ]);
  const readyIds = new Set(ready.map((r) => r.modelId));
  return rows.map((row) => toModelDetail(row, readyIds.has(row.id)));
}
