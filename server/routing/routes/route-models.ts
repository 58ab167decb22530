// Routes in the model list: each route a caller may name, shown as a model whose `owned_by` is
// "route", with the type, context and capabilities of the first catalog model it reaches, and
// ready when any model it reaches has a node up.
import { entryFor, type Catalog } from "../catalog/catalog-cache";
import type { ModelDetail, ModelObject } from "../catalog/model-card";
import { toModelDetail, toModelObject } from "../catalog/model-row";
import { routesOf, routeIn, type LoadedRoute } from "./route-cache";

type Routes = Parameters<typeof routesOf>[0];

/** The catalog models a route can reach (targets, nested routes and conditions), in order. */
function reachable(route: LoadedRoute, routes: Routes, workspaceId: string | null, seen = new Set<string>()): string[] {
  seen.add(route.definition.name);
  const names = [...route.definition.targets.map((t) => t.model), ...route.conditions.map((c) => c.use)];
  return names.flatMap((n) => {
    const nested = seen.has(n) ? null : routeIn(routes, workspaceId, n);
    return nested ? reachable(nested, routes, workspaceId, seen) : [n];
  });
}

/** One route as `GET /v1/models/{id}` shows it: the first model it reaches, under the route's name (its prices are that model's; a call is billed at the model that answers). */
export function routeModelDetail(routes: Routes, workspaceId: string | null, name: string, catalog: Catalog): ModelDetail | null {
  const route = routeIn(routes, workspaceId, name);
  if (!route) return null;
  const entries = reachable(route, routes, workspaceId).flatMap((id) => entryFor(catalog, id, workspaceId) ?? []);
  const first = entries[0];
  if (!first) return null;
  return { ...toModelDetail(first.row, entries.some((e) => e.readyNow)), id: name, created: Math.floor(route.updatedAt.getTime() / 1000), display_name: route.definition.description ?? name, owned_by: "route", provider: "gateway" };
}

export function routeModelObjects(routes: Routes, workspaceId: string | null, catalog: Catalog): ModelObject[] {
  return routesOf(routes, workspaceId).flatMap((route) => {
    const entries = reachable(route, routes, workspaceId).flatMap((id) => entryFor(catalog, id, workspaceId) ?? []);
    const first = entries[0];
    if (!first) return [];
    const base = toModelObject(first.row, entries.some((e) => e.readyNow));
    return [{ ...base, id: route.definition.name, created: Math.floor(route.updatedAt.getTime() / 1000), display_name: route.definition.description ?? route.definition.name, owned_by: "route", provider: "gateway" }];
  });
}
