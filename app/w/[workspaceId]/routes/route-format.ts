// Display formatting of routes: a new route's example, a retry policy and a target in one short
// phrase each, the share of calls each target answered, and a failed call's attempts.
import type { RouteView } from "@/server/routing/routes/route-store";
import type { RouteFailure, RouteShare } from "@/server/routing/routes/route-stats";

export type RouteDefinition = RouteView["definition"];
export type RouteTarget = RouteDefinition["targets"][number];
export type RouteAttempt = RouteFailure["attempts"][number];

/** What the editor holds for a new route: the smallest route that works on the built-in node. */
export const EXAMPLE_ROUTE = JSON.stringify({ name: "chat-default", strategy: "weighted", targets: [{ model: "local-chat-sim", weight: 70 }] }, null, 2);

/** A definition as the editor shows it: the stored one, defaults included, so an edit sees every field. */
export const definitionText = (def: RouteDefinition) => JSON.stringify(def, null, 2);

/** Without `retry`, a route tries every target once on 429, 5xx and timeout (docs/ROUTING.md). */
export function describeRetry(def: RouteDefinition): string {
  if (!def.retry) return `default: every target once, on 429, 5xx, timeout`;
  const { attempts, backoff_ms, on } = def.retry;
  return `${attempts} attempt${attempts === 1 ? "" : "s"} at most, on ${on.join(", ")}${backoff_ms ? `, backoff ${backoff_ms} ms (doubled each time)` : ""}`;
}

export function describeTimeouts(t: RouteTarget): string {
  const parts = [t.first_byte_timeout_ms ? `first byte ${t.first_byte_timeout_ms} ms` : null, t.timeout_ms ? `whole ${t.timeout_ms} ms` : null].filter(Boolean);
  return parts.length ? parts.join(" · ") : "—";
}

export type ShareRow = { target: string | null; calls: number; percent: number };

/** A route's calls of the last hour per target that answered (null: every target failed), with each one's share of the route's calls. */
export function sharesOf(route: string, shares: RouteShare[]): { total: number; rows: ShareRow[] } {
  const mine = shares.filter((s) => s.route === route);
  const total = mine.reduce((sum, s) => sum + s.calls, 0);
  return { total, rows: mine.map((s) => ({ target: s.target, calls: s.calls, percent: total ? (s.calls * 100) / total : 0 })) };
}

/** 100 -> "100%", 66.666 -> "66.7%". */
export const formatPercent = (p: number) => `${Math.round(p * 10) / 10}%`;

/** One attempt as `model@node → 200` or `model@node → 503 no_available_node`. */
export function describeAttempt(a: RouteAttempt): string {
  return `${a.model}${a.node ? `@${a.node}` : ""} → ${a.status}${a.error ? ` ${a.error}` : ""}`;
}
