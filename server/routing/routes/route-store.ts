// Setting, listing and removing routes: the operator's (scope "*", every workspace sees them) and a
// workspace's own. A route is checked whole before it is saved: its JSON (route-schema.ts), each
// condition's CEL (compiled and type-checked, refused with its position), each target and `use`
// naming a catalog model or a route the workspace can see, each pinned node existing and serving
// the target's model, and no cycle through nested routes and conditions. Every change is audited
// and notified, so every instance serves it at once (route-cache.ts).
import type { AuditActor } from "../../audit/actor";
import { diff, recordAudit } from "../../audit/record";
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { errors } from "../../kernel/errors";
import { hasIssues, validationError } from "../../kernel/validation-error";
import { invalidateRoutes } from "./route-cache";
import { compileCondition } from "./route-conditions";
import { GLOBAL_SCOPE, ZRouteDefinition, type RouteDefinition } from "./route-schema";

export type RouteView = { scope: "workspace" | "global"; name: string; definition: RouteDefinition; created_at: number; updated_at: number };

/** The fields of a route the audit log compares. */
const AUDITED = ["description", "strategy", "targets", "retry", "conditions", "max_wait_ms", "exploration", "prefer_region"] as const;

const scopeOf = (workspaceId: string | null) => workspaceId ?? GLOBAL_SCOPE;
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

function parse(input: unknown): RouteDefinition {
  try {
    return ZRouteDefinition.parse(input);
  } catch (err) {
    throw hasIssues(err) ? validationError(err.issues) : err;
  }
}

/** The scopes whose routes a workspace's callers can name: the operator's, and the workspace's own. */
const scopesSeenBy = (workspaceId: string | null) => ({ in: workspaceId ? [GLOBAL_SCOPE, workspaceId] : [GLOBAL_SCOPE] });

/** The routes a scope's callers can name: the scope's own and, for a workspace, the operator's (which its own shadow). */
async function visibleDefinitions(workspaceId: string | null): Promise<Map<string, RouteDefinition>> {
  const rows = await db.route.findMany({ where: { scope: scopesSeenBy(workspaceId) } });
  const byName = new Map<string, RouteDefinition>();
  for (const own of [false, true]) {
    for (const r of rows.filter((row) => (row.scope !== GLOBAL_SCOPE) === own)) {
      const parsed = ZRouteDefinition.safeParse(r.definition);
      if (parsed.success) byName.set(r.name, parsed.data);
    }
  }
  return byName;
}

/** Every check that needs more than the JSON; throws 400 naming the field. */
async function check(def: RouteDefinition, workspaceId: string | null): Promise<void> {
  def.conditions.forEach((c, i) => {
    const compiled = compileCondition(c.when);
    if (typeof compiled === "string") throw errors.invalidRequest(`conditions[${i}].when does not compile: ${compiled}`, `conditions[${i}].when`, "invalid_condition");
  });
  const routes = await visibleDefinitions(workspaceId);
  routes.set(def.name, def);
  const names = [def.name, ...def.targets.map((t) => t.model), ...def.conditions.map((c) => c.use)];
  // The models the workspace can name: the catalog's, and its own fine-tuned ones (another's is no model to it).
  const owners = workspaceId === null ? [{ ownerWorkspaceId: null }] : [{ ownerWorkspaceId: null }, { ownerWorkspaceId: workspaceId }];
  const models = new Set((await db.model.findMany({ where: { id: { in: names }, OR: owners }, select: { id: true } })).map((m) => m.id));
  if (models.has(def.name)) throw errors.invalidRequest(`\`${def.name}\` is a catalog model's id; a route needs a name of its own.`, "name");
  for (const [i, t] of def.targets.entries()) {
    if (!models.has(t.model) && !routes.has(t.model)) throw errors.invalidRequest(`targets[${i}].model \`${t.model}\` is neither a catalog model nor a route.`, `targets[${i}].model`, "model_not_found");
    if (t.node) {
      if (!models.has(t.model)) throw errors.invalidRequest(`targets[${i}] pins a node to a route; a node serves a model.`, `targets[${i}].node`);
      const node = await db.node.findFirst({ where: { OR: [{ id: t.node }, { name: t.node }] }, select: { id: true, models: { where: { modelId: t.model }, select: { modelId: true } } } });
      if (!node) throw errors.invalidRequest(`targets[${i}].node \`${t.node}\` is not a node.`, `targets[${i}].node`, "node_not_found");
      if (!node.models.length) throw errors.invalidRequest(`targets[${i}].node \`${t.node}\` does not serve \`${t.model}\`.`, `targets[${i}].node`);
    }
  }
  for (const [i, c] of def.conditions.entries()) {
    if (!models.has(c.use) && !routes.has(c.use)) throw errors.invalidRequest(`conditions[${i}].use \`${c.use}\` is neither a catalog model nor a route.`, `conditions[${i}].use`, "model_not_found");
  }
  const cycle = findCycle(def.name, routes);
  if (cycle) throw errors.invalidRequest(`The route would loop: ${cycle.join(" -> ")}.`, "targets", "route_cycle");
}

/** A path from `start` back to itself through targets and conditions, or null. */
export function findCycle(start: string, routes: Map<string, RouteDefinition>): string[] | null {
  const visiting: string[] = [];
  const done = new Set<string>();
  const walk = (name: string): string[] | null => {
    const at = visiting.indexOf(name);
    if (at >= 0) return [...visiting.slice(at), name];
    if (done.has(name)) return null;
    const def = routes.get(name);
    if (!def) return null;
    visiting.push(name);
    for (const next of [...def.targets.filter((t) => !t.node).map((t) => t.model), ...def.conditions.map((c) => c.use)]) {
      const found = walk(next);
      if (found) return found;
    }
    visiting.pop();
    done.add(name);
    return null;
  };
  return walk(start);
}

function view(row: { scope: string; name: string; definition: unknown; createdAt: Date; updatedAt: Date }): RouteView {
  return { scope: row.scope === GLOBAL_SCOPE ? "global" : "workspace", name: row.name, definition: ZRouteDefinition.parse(row.definition), created_at: seconds(row.createdAt), updated_at: seconds(row.updatedAt) };
}

/** Creates or replaces a route of the workspace (null: the operator's, for every workspace). */
export async function setRoute(workspaceId: string | null, input: unknown, actor?: AuditActor): Promise<RouteView> {
  const def = parse(input);
  await check(def, workspaceId);
  const scope = scopeOf(workspaceId);
  const row = await db.$transaction(async (tx) => {
    const before = await tx.route.findUnique({ where: { scope_name: { scope, name: def.name } } });
    const saved = await tx.route.upsert({
      where: { scope_name: { scope, name: def.name } },
      create: { scope, name: def.name, definition: def },
      update: { definition: def },
    });
    await recordAudit(tx, { workspaceId, actor, action: "route.set", target: { type: "route", id: def.name }, changes: diff<RouteDefinition>((before?.definition as RouteDefinition | undefined) ?? null, def, AUDITED) });
    await notify(tx, Channel.routesChanged, `${scope} ${def.name}`);
    return saved;
  });
  invalidateRoutes();
  return view(row);
}

/** The routes a workspace's callers can name (its own, and the operator's it does not shadow); null: the operator's only. */
export async function listRoutes(workspaceId: string | null): Promise<RouteView[]> {
  const rows = await db.route.findMany({ where: { scope: scopesSeenBy(workspaceId) }, orderBy: { name: "asc" } });
  const own = new Set(rows.filter((r) => r.scope !== GLOBAL_SCOPE).map((r) => r.name));
  return rows.filter((r) => r.scope !== GLOBAL_SCOPE || !own.has(r.name)).map(view);
}

/** One route as the workspace's callers see it (its own, else the operator's), or 404. */
export async function showRoute(workspaceId: string | null, name: string): Promise<RouteView> {
  const rows = await db.route.findMany({ where: { name, scope: scopesSeenBy(workspaceId) } });
  const row = rows.find((r) => r.scope !== GLOBAL_SCOPE) ?? rows[0];
  if (!row) throw errors.notFound(`No route named \`${name}\`.`, "route_not_found", "name");
  return view(row);
}

/** Removes a route of the workspace (null: the operator's); 404 when it has none of that name. A route others nest is refused. */
export async function removeRoute(workspaceId: string | null, name: string, actor?: AuditActor): Promise<void> {
  const scope = scopeOf(workspaceId);
  const routes = await visibleDefinitions(workspaceId);
  const users = [...routes.values()].filter((r) => r.name !== name && (r.targets.some((t) => t.model === name) || r.conditions.some((c) => c.use === name)));
  await db.$transaction(async (tx) => {
    const row = await tx.route.findUnique({ where: { scope_name: { scope, name } } });
    if (!row) throw errors.notFound(`No route named \`${name}\` here.`, "route_not_found", "name");
    // A route the scope's others still name is refused, unless the operator's of the same name takes its place.
    // (Workspaces' routes that name an operator's route removed later are checked at call time: that target is then unknown.)
    const replaced = workspaceId !== null && (await tx.route.findUnique({ where: { scope_name: { scope: GLOBAL_SCOPE, name } } }));
    if (users.length && !replaced) throw errors.invalidRequest(`\`${name}\` is used by ${users.map((u) => `\`${u.name}\``).join(", ")}; change those first.`, "name", "route_in_use");
    await tx.route.delete({ where: { scope_name: { scope, name } } });
    await recordAudit(tx, { workspaceId, actor, action: "route.remove", target: { type: "route", id: name }, changes: diff<RouteDefinition>(row.definition as RouteDefinition, null, AUDITED) });
    await notify(tx, Channel.routesChanged, `${scope} ${name}`);
  });
  invalidateRoutes();
}
