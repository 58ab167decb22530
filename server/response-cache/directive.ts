// What the response cache does with one call: `use` (read, and store a miss), `refresh` (skip the
// read, store the answer) or `bypass`, from the call's `x-gateway-cache` header or else the
// default of its key, then its plan, then its workspace; for how long (`x-gateway-cache-ttl`, at
// most the workspace's maximum); and in which scope (the workspace's, or the key's or plan's own).
// Only deterministic calls are cached unless the workspace allows sampled ones.
import type { CacheSettings, PlanRule } from "../identity/plans/plan-cache";
import type { Principal } from "../identity/principal";
import { errors } from "../kernel/errors";

export type CacheMode = "use" | "refresh" | "bypass";

export type CacheDirective = { mode: CacheMode; ttlSeconds: number; scope: string };

/** The cache's request headers, as the transport read them (absent from a dashboard call). */
export type CacheHeaders = { mode?: string; ttl?: string };

const MODES = new Set<string>(["use", "refresh", "bypass"]);

function headerMode(value: string | undefined): CacheMode | undefined {
  if (value === undefined) return undefined;
  const mode = value.trim().toLowerCase();
  if (!MODES.has(mode)) throw errors.invalidRequest(`x-gateway-cache must be use, refresh or bypass (got "${value.slice(0, 40)}").`, "x-gateway-cache");
  return mode as CacheMode;
}

function headerTtl(value: string | undefined, settings: CacheSettings): number {
  if (value === undefined) return Math.min(settings.ttlSeconds, settings.maxTtlSeconds);
  const ttl = /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(ttl >= 1 && ttl <= settings.maxTtlSeconds)) {
    throw errors.invalidRequest(`x-gateway-cache-ttl must be a whole number of seconds from 1 to ${settings.maxTtlSeconds} (this workspace's maximum).`, "x-gateway-cache-ttl");
  }
  return ttl;
}

/** The directive of a call, or throws 400 for a malformed header. */
export function cacheDirective(headers: CacheHeaders, settings: CacheSettings, principal: Principal, plan: PlanRule | null): CacheDirective {
  const key = principal.kind === "api_key" ? principal.cache : undefined;
  const asked = headerMode(headers.mode);
  const ttlSeconds = headerTtl(headers.ttl, settings);
  const defaultOn = key?.defaultOn ?? plan?.cacheDefault ?? settings.defaultOn;
  const mode = asked ?? (defaultOn ? "use" : "bypass");
  const scope = key?.ownScope && principal.keyId ? `key:${principal.keyId}` : plan?.cacheOwnScope ? `plan:${plan.id}` : "";
  return { mode, ttlSeconds, scope };
}

/** A call that samples (temperature above 0 without a seed) gives another answer each time. */
export function samples(input: Record<string, unknown>): boolean {
  const t = input.temperature;
  return typeof t === "number" && t > 0 && (input.seed === undefined || input.seed === null);
}
