// Plans of a workspace: create, list, update, delete. Every change NOTIFYs, so each instance's
// plan cache (plan-cache.ts) drops the workspace's plans at once.
import { z } from "zod";
import { Prisma } from "../../generated/prisma/client";
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { errors } from "../../kernel/errors";
import { newId } from "../../kernel/ids";
import { formatMoney, ZCreditAmount } from "../../kernel/money";
import { ZPlanToolPatterns } from "../keys/tool-patterns";
import { toPlanView, type PlanView } from "./plan-view";

/** The fields of a plan its audit events compare (its view's names). */
const PLAN_FIELDS = ["name", "models", "tools", "rpm", "tpm", "concurrency", "daily_cap", "monthly_cap", "max_ttl_seconds", "region"] as const;

/** A limit: a whole number above zero, or null for none. */
const ZLimit = z.number().int().positive().max(1_000_000_000).nullable();
const ZCap = ZCreditAmount.nullable();
/** The longest session token lifetime a plan may allow: 30 days. */
export const MAX_TTL_SECONDS = 30 * 86_400;

const ZRegion = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}$/, "a region is a two-letter country code, e.g. FR")
  .transform((c) => c.toUpperCase())
  .nullable();

export const ZPlanFields = z.object({
  name: z.string().trim().min(1).max(100),
  models: z.array(z.string().trim().min(1).max(200)).max(1000).default([]),
  /** Patterns of the MCP tools (`github__*`, `*__read_file`) the plan's callers may use; empty: every tool. */
  tools: ZPlanToolPatterns.default([]),
  rpm: ZLimit.default(null),
  tpm: ZLimit.default(null),
  concurrency: ZLimit.default(null),
  daily_cap: ZCap.default(null),
  monthly_cap: ZCap.default(null),
  max_ttl_seconds: z.number().int().min(60).max(MAX_TTL_SECONDS).default(3600),
  /** Where the plan's callers are: an ISO 3166 country code (routes that prefer the caller's region use it); null: none. */
  region: ZRegion.default(null),
});
export type PlanFields = z.input<typeof ZPlanFields>;
export const ZPlanPatch = ZPlanFields.partial().extend({
  models: z.array(z.string().trim().min(1).max(200)).max(1000).optional(),
  tools: ZPlanToolPatterns.optional(),
  rpm: ZLimit.optional(),
  tpm: ZLimit.optional(),
  concurrency: ZLimit.optional(),
  daily_cap: ZCap.optional(),
  monthly_cap: ZCap.optional(),
  max_ttl_seconds: z.number().int().min(60).max(MAX_TTL_SECONDS).optional(),
  region: ZRegion.optional(),
});
export type PlanPatch = z.input<typeof ZPlanPatch>;

type Data = Partial<z.output<typeof ZPlanFields>>;

function columns(d: Data) {
  const cap = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : formatMoney(v));
  return {
    name: d.name,
    models: d.models === undefined ? undefined : [...new Set(d.models)],
    tools: d.tools,
    rpm: d.rpm,
    tpm: d.tpm,
    concurrency: d.concurrency,
    dailyCap: cap(d.daily_cap),
    monthlyCap: cap(d.monthly_cap),
    maxTtlSeconds: d.max_ttl_seconds,
    region: d.region,
  };
}

const nameTaken = (name: string | undefined) => errors.invalidRequest(`A plan named "${name}" already exists in this workspace.`, "name", "plan_name_taken");

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002";
}

export async function createPlan(workspaceId: string, fields: PlanFields, actor?: AuditActor): Promise<PlanView> {
  const data = ZPlanFields.parse(fields);
  try {
    return await db.$transaction(async (tx) => {
      const ws = await tx.workspace.findUnique({ where: { id: workspaceId }, select: { id: true } });
      if (!ws) throw errors.notFound(`No workspace with id ${workspaceId}`, "workspace_not_found");
      const row = await tx.plan.create({ data: { id: newId("plan"), workspaceId, ...columns(data), name: data.name } });
      await notify(tx, Channel.plansChanged, workspaceId);
      const view = toPlanView(row);
      await recordAudit(tx, { workspaceId, actor, action: "plan.create", target: { type: "plan", id: row.id }, changes: diff(null, view, PLAN_FIELDS) });
      return view;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(data.name);
    throw err;
  }
}

export async function listPlans(workspaceId: string): Promise<PlanView[]> {
  const rows = await db.plan.findMany({ where: { workspaceId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return rows.map(toPlanView);
}

const planNotFound = (id: string) => errors.notFound(`No plan with id ${id} in this workspace.`, "plan_not_found", "plan");

export async function getPlan(workspaceId: string, id: string): Promise<PlanView> {
  const row = await db.plan.findFirst({ where: { id, workspaceId } });
  if (!row) throw planNotFound(id);
  return toPlanView(row);
}

export async function updatePlan(workspaceId: string, id: string, patch: PlanPatch, actor?: AuditActor): Promise<PlanView> {
  const data = ZPlanPatch.parse(patch);
  try {
    return await db.$transaction(async (tx) => {
      const found = await tx.plan.findFirst({ where: { id, workspaceId } });
      if (!found) throw planNotFound(id);
      const row = await tx.plan.update({ where: { id }, data: columns(data) });
      await notify(tx, Channel.plansChanged, workspaceId);
      const view = toPlanView(row);
      const changes = diff(toPlanView(found), view, PLAN_FIELDS);
      await recordAudit(tx, { workspaceId, actor, action: "plan.update", target: { type: "plan", id }, changes });
      return view;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(data.name);
    throw err;
  }
}

/**
 * Deletes a plan: its sessions end with it (tokens are checked against the workspace's plans on
 * every call, so they are refused once the plan cache drops the plan), and the keys on it fall
 * back to the workspace's defaults (every instance drops those keys from its cache).
 */
export async function deletePlan(workspaceId: string, id: string, actor?: AuditActor): Promise<{ object: "plan.deleted"; id: string; deleted: true }> {
  return db.$transaction(async (tx) => {
    const found = await tx.plan.findFirst({ where: { id, workspaceId } });
    if (!found) throw planNotFound(id);
    const keys = await tx.apiKey.findMany({ where: { planId: id }, select: { hash: true } });
    await tx.plan.delete({ where: { id } });
    const changes = diff(toPlanView(found), null, PLAN_FIELDS);
    await recordAudit(tx, { workspaceId, actor, action: "plan.delete", target: { type: "plan", id }, changes });
    await notify(tx, Channel.plansChanged, workspaceId);
    for (const k of keys) await notify(tx, Channel.keyChanged, k.hash);
    return { object: "plan.deleted", id, deleted: true };
  });
}

export const ZWorkspaceLimits = z.object({ rpm: ZLimit, tpm: ZLimit, concurrency: ZLimit }).partial();
export type WorkspaceLimits = { rpm: number | null; tpm: number | null; concurrency: number | null };

/** Operators set the rate limits every key and subject of a workspace gets where its plan sets none. */
export async function setWorkspaceLimits(workspaceId: string, limits: z.input<typeof ZWorkspaceLimits>, actor?: AuditActor): Promise<WorkspaceLimits> {
  const l = ZWorkspaceLimits.parse(limits);
  return db.$transaction(async (tx) => {
    const ws = await tx.workspace.findUnique({ where: { id: workspaceId }, select: { defaultRpm: true, defaultTpm: true, defaultConcurrency: true } });
    if (!ws) throw errors.notFound(`No workspace with id ${workspaceId}`, "workspace_not_found");
    const row = await tx.workspace.update({
      where: { id: workspaceId },
      data: { defaultRpm: l.rpm, defaultTpm: l.tpm, defaultConcurrency: l.concurrency },
      select: { defaultRpm: true, defaultTpm: true, defaultConcurrency: true },
    });
    await notify(tx, Channel.plansChanged, workspaceId);
    const before = { rpm: ws.defaultRpm, tpm: ws.defaultTpm, concurrency: ws.defaultConcurrency };
    const after = { rpm: row.defaultRpm, tpm: row.defaultTpm, concurrency: row.defaultConcurrency };
    const changes = diff(before, after, ["rpm", "tpm", "concurrency"]);
    if (Object.keys(changes).length) {
      await recordAudit(tx, { workspaceId, actor, action: "workspace.limits", target: { type: "workspace", id: workspaceId }, changes });
    }
    return after;
  });
}
