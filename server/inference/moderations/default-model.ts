// The model of a moderation request that names none. OpenAI answers with its latest moderation
// model; the gateway's equivalent is the first moderation model of its catalog (by id) that is
// served right now and that the caller may use (its plan's and key's models), so that leaving
// `model` out never picks a model the caller would be refused. With none, 404 model_not_found.
import { allowedModels } from "../../admission/admit";
import type { Principal } from "../../identity/principal";
import { GatewayError } from "../../kernel/errors";
import { entriesFor, getCatalog } from "../../routing/catalog/catalog-cache";

export async function defaultModerationModel(principal: Principal | null): Promise<string> {
  const [catalog, allowed] = await Promise.all([getCatalog(), allowedModels(principal)]);
  const ids = entriesFor(catalog, principal?.workspaceId ?? null)
    .filter((e) => e.row.type === "moderation" && e.readyNow && (!allowed || allowed.has(e.row.id)))
    .map((e) => e.row.id)
    .sort();
  if (ids[0]) return ids[0];
  throw new GatewayError({
    status: 404,
    code: "model_not_found",
    type: "invalid_request_error",
    param: "model",
    message: "No moderation model is served to you right now: name one in `model` (GET /v1/models lists those of type `moderation`).",
  });
}
