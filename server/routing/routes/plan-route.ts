// From a route and a call to the targets to try, in order: the route's conditions first (the first
// that holds sends the call to its `use`, a route or a model), then its strategy, which orders the
// targets (nested routes expanded in place). The first target is the one the strategy chose; the
// others are where a retried failure goes, healthy ones first. Pure and in memory: no statement,
// no await, so choosing costs microseconds (bench/route-choice.ts).
import type { Money } from "../../kernel/money";
import type { ConditionFacts } from "./route-conditions";
import { routeIn, type LoadedRoute } from "./route-cache";
import { coolingUntil, inFlightOf, latencyOf, targetKey } from "./target-stats";
import type { RouteDefinition, RouteTarget } from "./route-schema";

/** One target to try: a catalog model, perhaps pinned to a node, with its timeouts. */
export type Candidate = {
  key: string;
  model: string;
  node?: string;
  /** The route whose target it is (a nested route's name for its own targets). */
  route: string;
  timeoutMs?: number;
  firstByteTimeoutMs?: number;
};

export type RoutePlan = {
  /** The route whose retry policy applies: the one called, or the one a condition sent the call to. */
  policy: RouteDefinition;
  candidates: Candidate[];
  /** The condition that held (its index in the route called), if one did. */
  condition: number | null;
};

/** What the plan needs to know beside the routes: whether a target can serve now, its price for this call, the caller's region. */
export type PlanContext = {
  routes: Parameters<typeof routeIn>[0];
  workspaceId: string | null;
  /** Built only when a route has conditions. */
  facts: () => ConditionFacts;
  /** Whether a node that serves the model (the pinned one, if any) is online and its breaker closed. */
  healthy: (model: string, node: string | undefined) => boolean;
  /** The catalog price of this call on the model (lowest-cost), or null when unknown. */
  price: (model: string) => Money | null;
  /** Whether a node in the caller's region serves the model (prefer_region). */
  inRegion?: (model: string, node: string | undefined) => boolean;
  random?: () => number;
  now?: number;
};

const MAX_DEPTH = 8;

export function planRoute(route: LoadedRoute, pc: PlanContext): RoutePlan {
  let facts: ConditionFacts | undefined;
  for (let i = 0; i < route.conditions.length; i++) {
    const c = route.conditions[i]!;
    if (!c.when((facts ??= pc.facts()))) continue;
    const next = routeIn(pc.routes, pc.workspaceId, c.use);
    if (next && next !== route) return { ...planRoute(next, pc), condition: i };
    return { policy: route.definition, candidates: [{ key: c.use, model: c.use, route: route.definition.name }], condition: i };
  }
  return { policy: route.definition, candidates: orderTargets(route, pc, 0, new Set([route.definition.name])), condition: null };
}

/** The route's targets in the order its strategy gives, nested routes expanded, each target once. */
function orderTargets(route: LoadedRoute, pc: PlanContext, depth: number, seen: Set<string>): Candidate[] {
  const def = route.definition;
  const random = pc.random ?? Math.random;
  const now = pc.now ?? Date.now();
  const ordered = strategyOrder(def, pc, random);
  const out: Candidate[] = [];
  const keys = new Set<string>();
  for (const t of ordered) {
    const nested = !t.node && depth < MAX_DEPTH && !seen.has(t.model) ? routeIn(pc.routes, pc.workspaceId, t.model) : null;
    if (nested) {
      seen.add(t.model);
      for (const c of orderTargets(nested, pc, depth + 1, seen)) if (!keys.has(c.key)) (keys.add(c.key), out.push(c));
      seen.delete(t.model);
      continue;
    }
    const key = targetKey(t.model, t.node);
    if (keys.has(key)) continue;
    keys.add(key);
    out.push({ key, model: t.model, node: t.node, route: def.name, timeoutMs: t.timeout_ms, firstByteTimeoutMs: t.first_byte_timeout_ms });
  }
  // Healthy targets first (the strategy's order kept within each group): a target with no node up, or cooling down after a rate limit, only as a last resort.
  const ready = (c: Candidate) => pc.healthy(c.model, c.node) && coolingUntil(c.key) <= now;
  let result = [...out.filter(ready), ...out.filter((c) => !ready(c))];
  if (def.prefer_region && pc.inRegion) {
    const near = (c: Candidate) => pc.inRegion!(c.model, c.node);
    result = [...result.filter(near), ...result.filter((c) => !near(c))];
  }
  return result;
}

function strategyOrder(def: RouteDefinition, pc: PlanContext, random: () => number): RouteTarget[] {
  const targets = def.targets;
  switch (def.strategy) {
    case "fallback":
      return targets;
    case "weighted":
      return weightedOrder(targets, random);
    case "least-busy":
      return sortBy(targets, (t) => inFlightOf(targetKey(t.model, t.node)), random);
    case "lowest-cost":
      return sortBy(targets, (t) => {
        const p = pc.price(t.model);
        return p === null ? Number.POSITIVE_INFINITY : p.toNumber(); // an ordering only: the bill is exact
      }, random);
    case "least-latency": {
      // A target measured fewer than MIN_SAMPLES times goes first (so every target gets measured,
      // and a first measurement on a cold process, its connection and code still to warm up, does
      // not decide alone); then, but for an exploration share of the calls, the fastest first.
      const byLatency = sortBy(targets, (t) => {
        const l = latencyOf(targetKey(t.model, t.node));
        return l.samples < MIN_SAMPLES ? -1 : l.ms;
      }, random);
      if (targets.length > 1 && random() < def.exploration) {
        const pick = 1 + Math.floor(random() * (byLatency.length - 1));
        return [byLatency[pick]!, ...byLatency.filter((_, i) => i !== pick)];
      }
      return byLatency;
    }
  }
}


/** The measurements a target needs before the least-latency strategy ranks it by them. */
const MIN_SAMPLES = 3;
/** Ascending by `score`, ties in random order. */
function sortBy(targets: RouteTarget[], score: (t: RouteTarget) => number, random: () => number): RouteTarget[] {
  return targets
    .map((t) => ({ t, s: score(t), r: random() }))
    .sort((a, b) => a.s - b.s || a.r - b.r)
    .map((x) => x.t);
}

/** A weighted draw without replacement: the first by weight, then the next among the rest, and so on (weight 0 only as a fallback). */
function weightedOrder(targets: RouteTarget[], random: () => number): RouteTarget[] {
  if (targets.length === 1) return targets;
  const left = [...targets];
  const out: RouteTarget[] = [];
  while (left.length) {
    const total = left.reduce((s, t) => s + t.weight, 0);
    if (total <= 0) return [...out, ...left];
    let x = random() * total;
    let i = 0;
    for (; i < left.length - 1; i++) {
      x -= left[i]!.weight;
      if (x < 0) break;
    }
    out.push(left.splice(i, 1)[0]!);
  }
  return out;
}
