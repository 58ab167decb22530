// The model catalog with prices, network status and the health check.
import { z } from "zod";
import { ZModelDeleted, ZModelList } from "../../routing/catalog/model-answers";
import { ZModelDetail } from "../../routing/catalog/model-card";
import { getModel, listModels } from "../../routing/catalog/models";
import { deleteTunedModel } from "../../routing/catalog/tuned-models";
import { keyActor, type AuditActor } from "../../audit/actor";
import { networkStatus } from "../../routing/nodes/network-status";
import { ZNetworkStatus } from "../../routing/nodes/network-status-schema";
import { allowedModels } from "../../admission/admit";
import { getCatalog } from "../../routing/catalog/catalog-cache";
import type { ModelType } from "../../routing/catalog/model-card";
import { allRoutes } from "../../routing/routes/route-cache";
import { routeModelDetail, routeModelObjects } from "../../routing/routes/route-models";
import type { Principal } from "../../identity/principal";
import type { KeyPermission } from "../../identity/keys/permissions";
import { errors } from "../../kernel/errors";
import { operation } from "../operation";

const ZModelId = z.object({ id: z.string().min(1) });
/** No input: the transports pass an empty object, server-side callers may pass nothing. */
const NO_INPUT = z.object({}).optional();
const startedAt = performance.now();

export const modelsList = operation({
  id: "models.list",
  method: "GET",
  path: "/v1/models",
  summary: "List models",
  tags: ["Models"],
  kind: "query",
  tier: "api_key",
  permission: "models",
  x402: "read",
  body: { kind: "none" },
  input: NO_INPUT,
  output: ZModelList,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  // The catalog's models and the routes the caller's workspace can name, only those it may call:
  // its plan's and key's model lists, and a restricted key's operation groups.
  handler: async (ctx) => {
    const [list, allowed, routes, catalog] = await Promise.all([listModels(ctx.principal.workspaceId), allowedModels(ctx.principal), allRoutes(), getCatalog()]);
    const groups = permissionsOf(ctx.principal);
    const data = [...list.data, ...routeModelObjects(routes, ctx.principal.workspaceId, catalog)].filter((m) => (!allowed || allowed.has(m.id)) && (!groups || groups.has(GROUP_OF[m.type])));
    return { ...list, data };
  },
});

/** The operation group that calls a model of each type (a key without it cannot call the model). */
const GROUP_OF: Record<ModelType, KeyPermission> = { chat: "text", moderation: "text", embedding: "embeddings", speech: "audio", transcription: "audio", image: "images", video: "videos" };

/** A restricted key's (or its session's) operation groups; null: every group. */
const permissionsOf = (p: Principal) => (p.kind === "api_key" || p.kind === "session" ? (p.grant?.permissions ?? null) : null);

export const modelsGet = operation({
  id: "models.get",
  method: "GET",
  path: "/v1/models/{id}",
  summary: "Retrieve a model with its pricing and video ranges",
  tags: ["Models"],
  kind: "query",
  tier: "api_key",
  permission: "models",
  x402: "read",
  body: { kind: "none" },
  input: ZModelId,
  output: ZModelDetail,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: async (ctx, input) => {
    const allowed = await allowedModels(ctx.principal);
    if (allowed && !allowed.has(input.id)) throw errors.modelNotFound(input.id);
    // A route the caller's workspace can name is shown as the first model it reaches, under its own name.
    const [routes, catalog] = await Promise.all([allRoutes(), getCatalog()]);
    const model = routeModelDetail(routes, ctx.principal.workspaceId, input.id, catalog) ?? (await getModel(input.id, ctx.principal.workspaceId));
    // A restricted key sees only the models its operation groups can call, as in the list.
    const groups = permissionsOf(ctx.principal);
    if (groups && !groups.has(GROUP_OF[model.type])) throw errors.modelNotFound(input.id);
    return model;
  },
});

export const modelsDelete = operation({
  id: "models.delete",
  method: "DELETE",
  path: "/v1/models/{id}",
  summary: "Delete one of the workspace's fine-tuned models or checkpoints",
  tags: ["Models"],
  kind: "mutation",
  tier: "api_key",
  permission: "fine_tuning",
  body: { kind: "none" },
  input: ZModelId,
  output: ZModelDeleted,
  produces: { kind: "json" },
  errors: {
    403: "A model of the gateway's catalog that no workspace owns: models are managed by the gateway's operators (`permission_denied`).",
    404: "No such model, or another workspace's fine-tuned model (`model_not_found`).",
  },
  pricing: { kind: "free" },
  // A workspace deletes a model it fine-tuned (`owned_by` is its id) or one of its checkpoints: gone
  // from the catalog at once, and the node that trained it asked to delete it too. A restricted key
  // needs the `fine_tuning` group: what it deletes is what fine-tuning made.
  handler: (ctx, input) => deleteTunedModel(ctx.principal.workspaceId, input.id, actorOf(ctx.principal)),
});

/** Who deleted, for the audit log: the key, or the dashboard member. */
function actorOf(p: Principal): AuditActor | undefined {
  if (p.kind === "api_key") return keyActor(p.keyId);
  if (p.kind === "user") return { type: "system", name: `member ${p.userId}` };
  return undefined;
}

export const networkStatusOp = operation({
  id: "network.status",
  method: "GET",
  path: "/v1/network/status",
  summary: "Nodes online, regions and capabilities",
  tags: ["Network"],
  kind: "query",
  tier: "api_key",
  permission: "models",
  body: { kind: "none" },
  input: NO_INPUT,
  output: ZNetworkStatus,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: (ctx) => networkStatus(ctx.principal.workspaceId),
});

export const healthCheck = operation({
  id: "health.check",
  method: "GET",
  path: "/health",
  summary: "Health check (no credential needed)",
  tags: ["Health"],
  kind: "query",
  tier: "none",
  permission: null,
  body: { kind: "none" },
  input: NO_INPUT,
  output: z.strictObject({ ok: z.boolean(), uptimeMs: z.number().describe("Milliseconds since this gateway process started") }),
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: async () => ({ ok: true as const, uptimeMs: Math.round(performance.now() - startedAt) }),
});
