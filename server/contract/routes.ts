// The route table of the contract: from a method and a path to the operation that serves it
// (with its path parameters), or the methods a path allows (405). Static paths are one Map lookup; paths with parameters are tried segment by segment.
import type { AnyOperation, HttpMethod } from "./operation";
import { operations } from "./index";

type Entry = { kind: "served"; op: AnyOperation };
type Route = { segments: string[]; byMethod: Map<HttpMethod, Entry> };

export type RouteMatch =
  | { kind: "served"; op: AnyOperation; params: Record<string, string> }
  /** `open`: the path needs no credential (its operations are all of tier `none`). */
  | { kind: "method_not_allowed"; allowed: HttpMethod[]; open: boolean }
  | { kind: "not_found" };

const staticRoutes = new Map<string, Route>();
const paramRoutes: Route[] = [];

function add(path: string, method: HttpMethod, entry: Entry): void {
  const isStatic = !path.includes("{");
  let route = isStatic ? staticRoutes.get(path) : paramRoutes.find((r) => r.segments.join("/") === path.slice(1));
  if (!route) {
    route = { segments: path.slice(1).split("/"), byMethod: new Map() };
    if (isStatic) staticRoutes.set(path, route);
    else paramRoutes.push(route);
  }
  if (route.byMethod.has(method)) throw new Error(`${method} ${path} is declared twice`);
  route.byMethod.set(method, entry);
}

for (const op of operations) add(op.path, op.method, { kind: "served", op });

function findRoute(path: string): { route: Route; params: Record<string, string> } | null {
  const fixed = staticRoutes.get(path);
  if (fixed) return { route: fixed, params: {} };
  const parts = path.slice(1).split("/");
  for (const route of paramRoutes) {
    if (route.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const seg = route.segments[i]!;
      if (seg.startsWith("{")) {
        if (parts[i] === "") ok = false;
        else params[seg.slice(1, -1)] = parts[i]!;
      } else ok = seg === parts[i];
    }
    if (ok) return { route, params };
  }
  return null;
}

/** The API's namespace: every path under it is the contract's, an undeclared one a 404 in the API's error shape. */
const API_ROOT = "/v1";
/** Declared paths outside the namespace (`/health`, `/openapi.json`, the JWKS document), answered as declared. */
const rootPaths = new Set(operations.map((op) => op.path).filter((p) => p !== API_ROOT && !p.startsWith(`${API_ROOT}/`)));

/** Whether the contract answers this path (the rest of the site is the dashboard's). */
export function isContractPath(path: string): boolean {
  return path === API_ROOT || path.startsWith(`${API_ROOT}/`) || rootPaths.has(path);
}

/** The methods a path allows (HEAD wherever GET is), or null when no route has the path. */
export function allowedMethods(path: string): HttpMethod[] | null {
  const found = findRoute(path);
  return found ? [...found.route.byMethod.keys()] : null;
}

/** Matches a request; HEAD is matched as GET. Path parameters arrive still percent-encoded. */
export function matchRoute(method: string, path: string): RouteMatch {
  const found = findRoute(path);
  if (!found) return { kind: "not_found" };
  const entry = found.route.byMethod.get((method === "HEAD" ? "GET" : method) as HttpMethod);
  if (!entry) {
    const entries = [...found.route.byMethod.values()];
    const open = entries.every((e) => e.op.tier === "none");
    return { kind: "method_not_allowed", allowed: [...found.route.byMethod.keys()], open };
  }
  return { kind: "served", op: entry.op, params: found.params };
}
