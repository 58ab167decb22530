// What the request path needs of a workspace's plans and default limits, from memory: loaded once
// per workspace, dropped on every instance by NOTIFY when a plan or a default changes, and never
// used once KEY_CACHE_MAX_AGE_MS old (the bound when a notification is lost).
import { boundedLru } from "../../infra/cache/bounded-lru";
import { db } from "../../infra/db/client";
import { FreshCache, Channel } from "../../infra/cache/fresh-cache";
import { env } from "../../infra/env";
import type { Principal } from "../principal";

export type Limits = { rpm: number | null; tpm: number | null; concurrency: number | null };

export type PlanRule = Limits & {
  id: string;
  name: string;
  /** null: every model. */
  models: ReadonlySet<string> | null;
  /** Patterns of the MCP tools the plan allows (keys/tool-patterns.ts); null: every tool. */
  tools: readonly string[] | null;
  /** USD decimal strings. */
  dailyCap: string | null;
  monthlyCap: string | null;
  maxTtlSeconds: number;
  /** Where the plan's callers are (a country code), for routes that prefer the caller's region; null: not said. */
  region: string | null;
  /** The response cache under this plan: `use` by default (null: the workspace's), and its own entries. */
  cacheDefault: boolean | null;
  cacheOwnScope: boolean;
};

/** Whether the workspace keeps its calls' request and answer bodies, and how (server/request-log/capture/). */
export type CaptureSettings = { on: boolean; maxBytes: number; patterns: readonly string[] };

/** The workspace's response cache settings (server/response-cache/). `priceFraction`: a decimal string from 0 to 1. */
export type CacheSettings = { defaultOn: boolean; ttlSeconds: number; maxTtlSeconds: number; priceFraction: string; sampling: boolean };

/** A guardrail as stored (its definition is checked and compiled by server/guardrails/). */
export type GuardrailRow = { id: string; scope: string; name: string; definition: unknown; secret: string | null; updatedAt: Date };

/** Where a guardrail applies: `workspace` (every call; of every workspace when the attachment's workspace is "*"), `plan:<id>` or `key:<id>`. */
export type GuardrailAttachmentRow = { workspaceId: string; target: string; guardrail: GuardrailRow };

export type WorkspaceRules = {
  defaults: Limits;
  plans: ReadonlyMap<string, PlanRule>;
  capture: CaptureSettings;
  cache: CacheSettings;
  /** The guardrails attached for the workspace's calls (the operator's for every workspace included), oldest first; null: none. */
  guardrails: readonly GuardrailAttachmentRow[] | null;
};

/** The attachments' workspace id that applies them to every workspace (the operator's). */
const GLOBAL = "*";

async function loadRules(workspaceId: string): Promise<WorkspaceRules> {
  const [ws, plans, guardrails] = await Promise.all([
    db.workspace.findUnique({
      where: { id: workspaceId },
      select: {
        ...{ defaultRpm: true, defaultTpm: true, defaultConcurrency: true, captureBodies: true, captureMaxBytes: true, captureRedact: true },
        ...{ cacheDefault: true, cacheTtlSeconds: true, cacheMaxTtlSeconds: true, cachePriceFraction: true, cacheSampling: true },
      },
    }),
    db.plan.findMany({ where: { workspaceId } }),
    db.guardrailAttachment.findMany({
      where: { workspaceId: { in: [GLOBAL, workspaceId] } },
      select: { workspaceId: true, target: true, guardrail: { select: { id: true, scope: true, name: true, definition: true, secret: true, updatedAt: true } } },
      orderBy: { createdAt: "asc" },
    }),
  ]);
  const rules = new Map<string, PlanRule>();
  for (const p of plans) {
    rules.set(p.id, {
      id: p.id,
      name: p.name,
      models: p.models.length ? new Set(p.models) : null,
      tools: p.tools.length ? p.tools : null,
      rpm: p.rpm,
      tpm: p.tpm,
      concurrency: p.concurrency,
      dailyCap: p.dailyCap?.toString() ?? null,
      monthlyCap: p.monthlyCap?.toString() ?? null,
      maxTtlSeconds: p.maxTtlSeconds,
      region: p.region,
      cacheDefault: p.cacheDefault,
      cacheOwnScope: p.cacheOwnScope,
    });
  }
  return {
    defaults: { rpm: ws?.defaultRpm ?? null, tpm: ws?.defaultTpm ?? null, concurrency: ws?.defaultConcurrency ?? null },
    plans: rules,
    capture: { on: ws?.captureBodies ?? false, maxBytes: ws?.captureMaxBytes ?? 0, patterns: ws?.captureRedact ?? [] },
    cache: {
      defaultOn: ws?.cacheDefault ?? false,
      ttlSeconds: ws?.cacheTtlSeconds ?? 3600,
      maxTtlSeconds: ws?.cacheMaxTtlSeconds ?? 86400,
      priceFraction: ws?.cachePriceFraction.toString() ?? "0",
      sampling: ws?.cacheSampling ?? false,
    },
    guardrails: guardrails.length ? guardrails : null,
  };
}

const cache = new FreshCache<WorkspaceRules>({
  name: "plans",
  load: loadRules,
  channel: Channel.plansChanged,
  maxAgeMs: env.KEY_CACHE_MAX_AGE_MS,
  refreshMs: env.KEY_CACHE_REFRESH_MS,
});

export function workspaceRules(workspaceId: string): Promise<WorkspaceRules> {
  return cache.get(workspaceId);
}

/** Whether a caller's calls use the response cache when they do not say: its key's default, else its plan's, else its workspace's. */
export async function cacheOnByDefault(principal: Principal): Promise<boolean> {
  const rules = await cache.get(principal.workspaceId);
  const keyDefault = principal.kind === "api_key" ? principal.cache?.defaultOn : null;
  const plan = principal.kind === "api_key" || principal.kind === "session" ? (principal.planId && rules.plans.get(principal.planId)) : null;
  return keyDefault ?? (plan ? plan.cacheDefault : null) ?? rules.cache.defaultOn;
}

/** The capture settings that apply to a caller's calls (a key may override its workspace either way), or null: none kept. */
export async function captureFor(principal: Principal): Promise<CaptureSettings | null> {
  const { capture } = await cache.get(principal.workspaceId);
  const on = principal.kind === "api_key" && principal.capture !== undefined ? principal.capture : capture.on;
  return on ? capture : null;
}

/** The levels an attachment can be at, in the order they run: the operator's, the workspace's, the plan's, the key's. */
const LEVELS = 4;

/**
 * The guardrails that apply to a caller's calls, in the order they run: the operator's attached to
 * every workspace, the workspace's, then those of the caller's plan and of its key (each once,
 * where first attached); null: none (most calls: decided from the rules the call already read).
 */
export function guardrailsFor(rules: WorkspaceRules, principal: Principal): readonly GuardrailRow[] | null {
  if (!rules.guardrails) return null;
  const planId = principal.kind === "api_key" || principal.kind === "session" ? principal.planId : null;
  const keyId = principal.kind === "api_key" ? principal.keyId : null;
  const rank = (a: GuardrailAttachmentRow): number => {
    if (a.target === "workspace") return a.workspaceId === GLOBAL ? 0 : 1;
    if (planId && a.target === `plan:${planId}`) return 2;
    if (keyId && a.target === `key:${keyId}`) return 3;
    return -1;
  };
  const seen = new Set<string>();
  const out: GuardrailRow[] = [];
  for (let level = 0; level < LEVELS; level++) {
    for (const a of rules.guardrails) {
      if (rank(a) !== level || seen.has(a.guardrail.id)) continue;
      seen.add(a.guardrail.id);
      out.push(a.guardrail);
    }
  }
  return out.length ? out : null;
}

/** When a plan id missing from memory was last looked up in the database. */
const missed = boundedLru<string, number>(10_000);
const MISS_RETRY_MS = 1000;

/**
 * The workspace's rules, holding `planId` if the database does: a plan missing from memory is
 * looked up once more in the database (it may have been created a moment ago, its notification
 * still on its way).
 */
export async function rulesWithPlan(workspaceId: string, planId: string): Promise<WorkspaceRules> {
  const rules = await cache.get(workspaceId);
  if (rules.plans.has(planId)) return rules;
  // At most once a second per plan id: a deleted plan's tokens must not cost a query per call.
  const key = `${workspaceId} ${planId}`;
  const last = missed.get(key);
  if (last !== undefined && Date.now() - last < MISS_RETRY_MS) return rules;
  missed.set(key, Date.now());
  cache.evict(workspaceId);
  return cache.get(workspaceId);
}

/** The limits that apply under a plan (or none): the plan's own, else the workspace's defaults. */
export function effectiveLimits(rules: WorkspaceRules, plan: PlanRule | null): Limits {
  return {
    rpm: plan?.rpm ?? rules.defaults.rpm,
    tpm: plan?.tpm ?? rules.defaults.tpm,
    concurrency: plan?.concurrency ?? rules.defaults.concurrency,
  };
}

export function clearPlanCache(): void {
  cache.evict("*");
}
