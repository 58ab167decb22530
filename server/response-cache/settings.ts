// The response cache's settings: a workspace's (used by default or not, an entry's lifetime and
// the longest a call may ask, the price of a hit as a fraction of the original call's, whether
// sampled calls are cached), and a key's or a plan's own (a default, and a scope of their own).
// Each change is audited and drops the cached settings on every instance (NOTIFY).
import { z } from "zod";
import { diff, recordAudit, type AuditActor } from "../audit/record";
import { db, type Tx } from "../infra/db/client";
import { Channel, notify } from "../infra/db/notify";
import { errors } from "../kernel/errors";
import { formatMoney } from "../kernel/money";
import { validationError } from "../kernel/validation-error";

const MAX_TTL = 30 * 86_400;

export const ZCacheSettings = z.object({
  /** `use` for every call that does not say otherwise. */
  default_on: z.boolean(),
  ttl_seconds: z.number().int().min(1).max(MAX_TTL),
  max_ttl_seconds: z.number().int().min(1).max(MAX_TTL),
  /** A hit costs this fraction of what the original call cost: a decimal string from 0 to 1. */
  price_fraction: z.string().regex(/^(0(\.\d{1,6})?|1(\.0{1,6})?)$/, "must be a decimal from 0 to 1 (at most 6 places)"),
  /** Also cache sampled calls (temperature above 0 without a seed). */
  sampling: z.boolean(),
});
export type CacheSettingsView = z.infer<typeof ZCacheSettings>;
export const ZCachePatch = ZCacheSettings.partial();

const SELECT = { cacheDefault: true, cacheTtlSeconds: true, cacheMaxTtlSeconds: true, cachePriceFraction: true, cacheSampling: true } as const;
type Row = { cacheDefault: boolean; cacheTtlSeconds: number; cacheMaxTtlSeconds: number; cachePriceFraction: { toString(): string }; cacheSampling: boolean };

const view = (w: Row): CacheSettingsView => ({
  default_on: w.cacheDefault,
  ttl_seconds: w.cacheTtlSeconds,
  max_ttl_seconds: w.cacheMaxTtlSeconds,
  price_fraction: formatMoney(w.cachePriceFraction),
  sampling: w.cacheSampling,
});

const FIELDS = ["default_on", "ttl_seconds", "max_ttl_seconds", "price_fraction", "sampling"] as const;

export async function getCacheSettings(workspaceId: string): Promise<CacheSettingsView> {
  const ws = await db.workspace.findUnique({ where: { id: workspaceId }, select: SELECT });
  if (!ws) throw errors.notFound(`No workspace with id ${workspaceId}`, "workspace_not_found");
  return view(ws);
}

export async function setCacheSettings(workspaceId: string, patch: z.input<typeof ZCachePatch>, actor?: AuditActor): Promise<CacheSettingsView> {
  const parsed = ZCachePatch.safeParse(patch);
  if (!parsed.success) throw validationError(parsed.error.issues);
  const p = parsed.data;
  return db.$transaction(async (tx) => {
    const before = await tx.workspace.findUnique({ where: { id: workspaceId }, select: SELECT });
    if (!before) throw errors.notFound(`No workspace with id ${workspaceId}`, "workspace_not_found");
    const ttl = p.ttl_seconds ?? before.cacheTtlSeconds;
    const max = p.max_ttl_seconds ?? before.cacheMaxTtlSeconds;
    if (ttl > max) throw errors.invalidRequest(`ttl_seconds (${ttl}) must not be above max_ttl_seconds (${max}).`, "ttl_seconds");
    const after = await tx.workspace.update({
      where: { id: workspaceId },
      data: { cacheDefault: p.default_on, cacheTtlSeconds: p.ttl_seconds, cacheMaxTtlSeconds: p.max_ttl_seconds, cachePriceFraction: p.price_fraction, cacheSampling: p.sampling },
      select: SELECT,
    });
    await notify(tx, Channel.plansChanged, workspaceId);
    const changes = diff(view(before), view(after), FIELDS);
    if (Object.keys(changes).length) await recordAudit(tx, { workspaceId, actor, action: "cache.update", target: { type: "workspace", id: workspaceId }, changes });
    return view(after);
  });
}

export const ZOwnCache = z.object({
  /** `use` by default for its calls: true, false, or null (the plan's, then the workspace's). */
  default_on: z.boolean().nullable().optional(),
  /** Its calls' entries are its own, never shared with the rest of the workspace. */
  own_scope: z.boolean().optional(),
});
export const ZOwnCacheView = z.object({ default_on: z.boolean().nullable(), own_scope: z.boolean() });
export type OwnCacheView = z.infer<typeof ZOwnCacheView>;

type OwnRow = { cacheDefault: boolean | null; cacheOwnScope: boolean };
const OWN = { cacheDefault: true, cacheOwnScope: true } as const;
const ownView = (r: OwnRow): OwnCacheView => ({ default_on: r.cacheDefault, own_scope: r.cacheOwnScope });

function parseOwn(patch: z.input<typeof ZOwnCache>): z.output<typeof ZOwnCache> {
  const parsed = ZOwnCache.safeParse(patch);
  if (!parsed.success) throw validationError(parsed.error.issues);
  return parsed.data;
}

/** Records a key's or plan's change (when something changed) and answers its settings as they are now. */
async function recordOwn(tx: Tx, workspaceId: string, target: { type: "key" | "plan"; id: string }, before: OwnRow, after: OwnRow, actor?: AuditActor): Promise<OwnCacheView> {
  const changes = diff(ownView(before), ownView(after), ["default_on", "own_scope"]);
  if (Object.keys(changes).length) await recordAudit(tx, { workspaceId, actor, action: "cache.update", target, changes });
  return ownView(after);
}

/** A key's own cache settings; every instance drops the cached key. */
export async function setKeyCache(workspaceId: string, keyId: string, patch: z.input<typeof ZOwnCache>, actor?: AuditActor): Promise<OwnCacheView> {
  const p = parseOwn(patch);
  return db.$transaction(async (tx) => {
    const key = await tx.apiKey.findFirst({ where: { id: keyId, workspaceId }, select: OWN });
    if (!key) throw errors.notFound(`No API key with id ${keyId}`, "key_not_found");
    const row = await tx.apiKey.update({ where: { id: keyId }, data: { cacheDefault: p.default_on, cacheOwnScope: p.own_scope }, select: { ...OWN, hash: true } });
    await notify(tx, Channel.keyChanged, row.hash);
    return recordOwn(tx, workspaceId, { type: "key", id: keyId }, key, row, actor);
  });
}

/** A plan's own cache settings; every instance drops the workspace's cached plans. */
export async function setPlanCache(workspaceId: string, planId: string, patch: z.input<typeof ZOwnCache>, actor?: AuditActor): Promise<OwnCacheView> {
  const p = parseOwn(patch);
  return db.$transaction(async (tx) => {
    const plan = await tx.plan.findFirst({ where: { id: planId, workspaceId }, select: OWN });
    if (!plan) throw errors.notFound(`No plan ${planId} in this workspace.`, "plan_not_found");
    const row = await tx.plan.update({ where: { id: planId }, data: { cacheDefault: p.default_on, cacheOwnScope: p.own_scope }, select: OWN });
    await notify(tx, Channel.plansChanged, workspaceId);
    return recordOwn(tx, workspaceId, { type: "plan", id: planId }, plan, row, actor);
  });
}
