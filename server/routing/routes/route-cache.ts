// The routes held in memory: every call that names a model asks here whether it names a route, and
// gets its answer from a map (no statement per call). Loaded once per process, reloaded when a
// route changes anywhere (NOTIFY from the changing transaction, so every instance sees it within
// the notification's delivery) and every REFRESH_MS in the background in case one was missed.
import { db } from "../../infra/db/client";
import { Channel, listen } from "../../infra/db/notify";
import { logFor } from "../../infra/telemetry/log";
import { compileCondition, type CompiledCondition } from "./route-conditions";
import { GLOBAL_SCOPE, ZRouteDefinition, type RouteDefinition } from "./route-schema";

const log = logFor("routing");
const REFRESH_MS = 30_000;

/** A route as calls use it: its definition, its conditions compiled, and where it was defined. */
export type LoadedRoute = {
  scope: string;
  definition: RouteDefinition;
  conditions: { when: CompiledCondition; use: string }[];
  updatedAt: Date;
};

type Routes = Map<string, Map<string, LoadedRoute>>;

const state = globalThis as unknown as { gatewayRoutes?: Routes; gatewayRoutesLoading?: Promise<Routes>; gatewayRoutesGeneration?: number };
let subscribed: Promise<void> | undefined;
let refresher: NodeJS.Timeout | undefined;

/** A stored route made ready for calls; null (and logged) for one that no longer validates. */
export function loadRoute(scope: string, definition: unknown, updatedAt: Date): LoadedRoute | null {
  const parsed = ZRouteDefinition.safeParse(definition);
  if (!parsed.success) {
    log.error({ scope, issues: parsed.error.issues }, "a stored route does not validate; it is not served");
    return null;
  }
  const conditions: LoadedRoute["conditions"] = [];
  for (const c of parsed.data.conditions) {
    const when = compileCondition(c.when);
    if (typeof when === "string") {
      log.error({ scope, route: parsed.data.name, reason: when }, "a stored route's condition does not compile; it is not served");
      return null;
    }
    conditions.push({ when, use: c.use });
  }
  return { scope, definition: parsed.data, conditions, updatedAt };
}

async function loadRoutes(): Promise<Routes> {
  const rows = await db.route.findMany();
  const routes: Routes = new Map();
  for (const row of rows) {
    const route = loadRoute(row.scope, row.definition, row.updatedAt);
    if (!route) continue;
    let scoped = routes.get(row.scope);
    if (!scoped) routes.set(row.scope, (scoped = new Map()));
    scoped.set(row.name, route);
  }
  return routes;
}

function reload(): Promise<Routes> {
  const generation = (state.gatewayRoutesGeneration = (state.gatewayRoutesGeneration ?? 0) + 1);
  // Whatever loads the routes in this process listens for their changes first: a change committed
  // meanwhile is either in the load or notified after it. (The dashboard's procedures and the data
  // plane may hold this module twice in one process; each copy that loads subscribes.)
  subscribe();
  const loading = (subscribed ?? Promise.resolve())
    .then(() => loadRoutes())
    .then((routes) => {
      // A reload that started before a later one must not overwrite it.
      if (state.gatewayRoutesGeneration === generation) state.gatewayRoutes = routes;
      return state.gatewayRoutes ?? routes;
    });
  state.gatewayRoutesLoading = loading;
  loading.catch((err: unknown) => log.error({ err }, "routes could not be loaded")).finally(() => {
    if (state.gatewayRoutesLoading === loading) state.gatewayRoutesLoading = undefined;
  });
  return loading;
}

function subscribe(): void {
  subscribed ??= listen(Channel.routesChanged, () => void reload().catch(() => undefined)).catch((err: unknown) => {
    subscribed = undefined;
    log.error({ err }, "routes cache: LISTEN failed");
  });
  refresher ??= setInterval(() => void reload().catch(() => undefined), REFRESH_MS).unref();
}

/** The routes if this process has loaded them (a call then decides without awaiting). */
export function routesNow(): Routes | undefined {
  return state.gatewayRoutes;
}

/** Every route, by scope and name (loaded at the first call of the process). */
export async function allRoutes(): Promise<Routes> {
  return state.gatewayRoutes ?? state.gatewayRoutesLoading ?? reload();
}

/** The route a workspace's caller means by `name` (its own, else the operator's), or null: a model. */
export function routeIn(routes: Routes, workspaceId: string | null, name: string): LoadedRoute | null {
  if (routes.size === 0) return null;
  return (workspaceId !== null ? routes.get(workspaceId)?.get(name) : undefined) ?? routes.get(GLOBAL_SCOPE)?.get(name) ?? null;
}

/** The routes a workspace's callers see: its own, and the operator's it does not shadow. */
export function routesOf(routes: Routes, workspaceId: string | null): LoadedRoute[] {
  const own = (workspaceId !== null && routes.get(workspaceId)) || new Map<string, LoadedRoute>();
  const global = [...(routes.get(GLOBAL_SCOPE)?.values() ?? [])].filter((r) => !own.has(r.definition.name));
  return [...own.values(), ...global].sort((a, b) => a.definition.name.localeCompare(b.definition.name));
}

/** The route a call's `model` names for its caller's workspace, or null: once the routes are loaded, a map lookup answered without an await (most calls name a model). */
export function routeOf(call: { principal: { workspaceId: string } | null }, input: unknown): LoadedRoute | null | Promise<LoadedRoute | null> {
  const model = (input as { model?: unknown } | null)?.model;
  const principal = call.principal;
  if (typeof model !== "string" || !principal) return null;
  const routes = state.gatewayRoutes;
  if (routes) return routeIn(routes, principal.workspaceId, model);
  return allRoutes().then((loaded) => routeIn(loaded, principal.workspaceId, model));
}

/** Drops what this process holds, for a change it made itself (it reloads at once; others on NOTIFY). */
export function invalidateRoutes(): void {
  if (!state.gatewayRoutes && !state.gatewayRoutesLoading) return; // a process that serves no calls (the CLI) holds none
  state.gatewayRoutes = undefined;
  void reload().catch(() => undefined);
}
