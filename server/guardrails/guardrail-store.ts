// Adding, attaching, listing and removing guardrails: the operator's (scope "*", which any
// workspace may attach, and the operator may attach to every workspace) and a workspace's own (which
// shadow the operator's of the same name). A guardrail is checked whole before it is saved (its
// JSON, its patterns as RE2, its schema, its model in the catalog, its URLs under the outbound
// policy). Every change is audited and notified: every instance drops the workspace's rules
// (identity/plans/plan-cache.ts) and reads them again on its next call.
import type { AuditActor } from "../audit/actor";
import { diff, recordAudit } from "../audit/record";
import { db, type Tx } from "../infra/db/client";
import { Channel, notify } from "../infra/db/notify";
import { assertOutboundUrlAllowed } from "../infra/net/outbound-policy";
import { seal } from "../infra/secret-box";
import { errors } from "../kernel/errors";
import { newId, randomBase62 } from "../kernel/ids";
import { hasIssues, validationError } from "../kernel/validation-error";
import { resolveModel } from "../routing/catalog/catalog-cache";
import { compileDenyPattern } from "./detectors/deny";
import { ZGuardrailDefinition, type GuardrailDefinition } from "./guardrail-schema";

export const GLOBAL_SCOPE = "*";

/** What a guardrail is attached to: the workspace (every call), a plan, a key; `global`: every workspace. */
export type AttachTarget = { plan?: string; key?: string };

export type GuardrailView = GuardrailDefinition & {
  object: "guardrail";
  id: string;
  scope: "workspace" | "global";
  /** Where it applies in this workspace: "workspace", "plan:<id>", "key:<id>", and "all_workspaces" for the operator's attached everywhere. */
  attached_to: string[];
  created_at: number;
  updated_at: number;
  /** An http guardrail's signing secret: answered once, when the guardrail is first added. */
  signing_secret?: string;
};

const AUDITED = ["description", "type", "stage", "action", "on_error", "timeout_ms", "entities", "patterns", "words", "model", "thresholds", "schema", "url", "adapter", "anonymizer_url"] as const;
const scopeOf = (workspaceId: string | null) => workspaceId ?? GLOBAL_SCOPE;
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

function parse(input: unknown): GuardrailDefinition {
  try {
    return ZGuardrailDefinition.parse(input);
  } catch (err) {
    throw hasIssues(err) ? validationError(err.issues) : err;
  }
}

/** The checks that need more than the JSON; throws 400 naming the field. */
async function check(def: GuardrailDefinition, workspaceId: string | null): Promise<void> {
  def.patterns?.forEach((p, i) => {
    const compiled = compileDenyPattern(p);
    if (typeof compiled === "string") throw errors.invalidRequest(`patterns[${i}] is not an RE2 expression: ${compiled}`, `patterns[${i}]`, "invalid_pattern");
  });
  if (def.schema) {
    const compiled = (await import("./detectors/json-schema")).compileSchema(def.schema);
    if (typeof compiled === "string") throw errors.invalidRequest(`The schema is not a JSON Schema: ${compiled}`, "schema", "invalid_schema");
  }
  if (def.url) assertOutboundUrlAllowed(def.url, "url");
  if (def.anonymizer_url) assertOutboundUrlAllowed(def.anonymizer_url, "anonymizer_url");
  if (def.model) {
    const { row } = await resolveModel(def.model, workspaceId).catch(() => {
      throw errors.invalidRequest(`\`${def.model}\` is not a model of the catalog.`, "model", "model_not_found");
    });
    if (row.type !== "moderation") throw errors.invalidRequest(`\`${def.model}\` is a ${row.type} model; a guardrail's model is a moderation (classifier) model.`, "model", "model_not_supported");
  }
}

type Row = { id: string; scope: string; name: string; definition: unknown; createdAt: Date; updatedAt: Date; attachments?: { workspaceId: string; target: string }[] };

function view(row: Row, workspaceId: string | null): GuardrailView {
  const attached = (row.attachments ?? []).filter((a) => a.workspaceId === scopeOf(workspaceId) || a.workspaceId === GLOBAL_SCOPE);
  // A definition stored by an older version that no longer parses is shown as stored (it runs as a failing check).
  const parsed = ZGuardrailDefinition.safeParse(row.definition);
  return {
    ...(parsed.success ? parsed.data : (row.definition as GuardrailDefinition)),
    object: "guardrail",
    id: row.id,
    scope: row.scope === GLOBAL_SCOPE ? "global" : "workspace",
    attached_to: attached.map((a) => (a.workspaceId === GLOBAL_SCOPE && workspaceId !== null ? "all_workspaces" : a.target)),
    created_at: seconds(row.createdAt),
    updated_at: seconds(row.updatedAt),
  };
}

/** Tells every instance that the scope's guardrails changed ("*": every workspace's rules). */
const changed = (tx: Tx, workspaceId: string | null) => notify(tx, Channel.plansChanged, scopeOf(workspaceId));

/** Adds a guardrail to the workspace (null: the operator's), or replaces the definition of the one of that name (its attachments kept). */
export async function addGuardrail(workspaceId: string | null, input: unknown, actor?: AuditActor): Promise<GuardrailView> {
  const def = parse(input);
  await check(def, workspaceId);
  const scope = scopeOf(workspaceId);
  let secret: string | undefined;
  const row = await db.$transaction(async (tx) => {
    const before = await tx.guardrail.findUnique({ where: { scope_name: { scope, name: def.name } } });
    if (def.type === "http" && !before?.secret) secret = `grsec_${randomBase62(32)}`;
    const data = { definition: def as object, ...(secret ? { secret: seal(secret) } : {}) };
    const saved = await tx.guardrail.upsert({
      where: { scope_name: { scope, name: def.name } },
      create: { id: newId("gr"), scope, name: def.name, ...data },
      update: data,
      include: { attachments: true },
    });
    const action = before ? "guardrail.update" : "guardrail.add";
    await recordAudit(tx, { workspaceId, actor, action, target: { type: "guardrail", id: saved.id }, changes: diff<GuardrailDefinition>((before?.definition as GuardrailDefinition | undefined) ?? null, def, AUDITED) });
    await changed(tx, workspaceId);
    return saved;
  });
  return { ...view(row, workspaceId), ...(secret ? { signing_secret: secret } : {}) };
}

/** The guardrail a workspace's name means: its own, else the operator's; 404 otherwise. */
export async function visible(tx: Tx | typeof db, workspaceId: string | null, name: string) {
  const rows = await tx.guardrail.findMany({ where: { name, scope: { in: workspaceId ? [workspaceId, GLOBAL_SCOPE] : [GLOBAL_SCOPE] } } });
  const row = rows.find((r) => r.scope !== GLOBAL_SCOPE) ?? rows[0];
  if (!row) throw errors.notFound(`No guardrail named \`${name}\`.`, "guardrail_not_found", "name");
  return row;
}

/** The attachment's target, checked to be the workspace's own plan or key (a detach may name one since deleted, by id). */
async function targetOf(tx: Tx, workspaceId: string | null, to: AttachTarget, detach = false): Promise<string> {
  if (to.plan && to.key) throw errors.invalidRequest("Attach to a plan or to a key, not both.", "plan");
  if (!to.plan && !to.key) return "workspace";
  if (!workspaceId) throw errors.invalidRequest("The operator's attachments are to every workspace; a plan or a key is a workspace's.", to.plan ? "plan" : "key");
  if (to.plan) {
    const plan = await tx.plan.findFirst({ where: { workspaceId, OR: [{ id: to.plan }, { name: to.plan }] }, select: { id: true } });
    if (!plan && detach) return `plan:${to.plan}`;
    if (!plan) throw errors.notFound(`No plan \`${to.plan}\` in this workspace.`, "plan_not_found", "plan");
    return `plan:${plan.id}`;
  }
  const key = await tx.apiKey.findFirst({ where: { workspaceId, id: to.key }, select: { id: true } });
  if (!key && detach) return `key:${to.key}`;
  if (!key) throw errors.notFound(`No key \`${to.key}\` in this workspace.`, "key_not_found", "key");
  return `key:${key.id}`;
}

/** Attaches a guardrail (the workspace's own or the operator's) to the workspace, one of its plans or keys; null workspace: the operator's to every workspace. */
export async function attachGuardrail(workspaceId: string | null, name: string, to: AttachTarget, actor?: AuditActor, detach = false): Promise<GuardrailView> {
  const row = await db.$transaction(async (tx) => {
    const g = await visible(tx, workspaceId, name);
    const target = await targetOf(tx, workspaceId, to, detach);
    const key = { guardrailId_workspaceId_target: { guardrailId: g.id, workspaceId: scopeOf(workspaceId), target } };
    if (detach) {
      // The operator's guardrail of the same name, attached before the workspace's own shadowed it, is detached too.
      const named = await tx.guardrail.findMany({ where: { name, scope: { in: [scopeOf(workspaceId), GLOBAL_SCOPE] } }, select: { id: true } });
      const gone = await tx.guardrailAttachment.deleteMany({ where: { guardrailId: { in: named.map((n) => n.id) }, workspaceId: scopeOf(workspaceId), target } });
      if (!gone.count) throw errors.notFound(`\`${name}\` is not attached to ${target === "workspace" ? "the workspace" : target}.`, "attachment_not_found", "name");
    } else {
      await tx.guardrailAttachment.upsert({ where: key, create: key.guardrailId_workspaceId_target, update: {} });
    }
    const action = detach ? "guardrail.detach" : "guardrail.attach";
    await recordAudit(tx, { workspaceId, actor, action, target: { type: "guardrail", id: g.id }, changes: { attached_to: detach ? { from: target, to: null } : { from: null, to: target } } });
    await changed(tx, workspaceId);
    return tx.guardrail.findUniqueOrThrow({ where: { id: g.id }, include: { attachments: true } });
  });
  return view(row, workspaceId);
}

/** The guardrails a workspace sees (its own, and the operator's it does not shadow), with where each applies to it. */
export async function listGuardrails(workspaceId: string | null): Promise<GuardrailView[]> {
  const rows = await db.guardrail.findMany({ where: { scope: { in: workspaceId ? [workspaceId, GLOBAL_SCOPE] : [GLOBAL_SCOPE] } }, include: { attachments: true }, orderBy: { name: "asc" } });
  const own = new Set(rows.filter((r) => r.scope !== GLOBAL_SCOPE).map((r) => r.name));
  // An operator's guardrail the workspace's own shadows is listed still while it is attached here (it runs).
  const attachedHere = (r: (typeof rows)[number]) => r.attachments.some((a) => a.workspaceId === workspaceId || a.workspaceId === GLOBAL_SCOPE);
  return rows.filter((r) => r.scope !== GLOBAL_SCOPE || !own.has(r.name) || attachedHere(r)).map((r) => view(r, workspaceId));
}

/** One guardrail as the workspace sees it, or 404. */
export async function showGuardrail(workspaceId: string | null, name: string): Promise<GuardrailView> {
  const row = await visible(db, workspaceId, name);
  return view(await db.guardrail.findUniqueOrThrow({ where: { id: row.id }, include: { attachments: true } }), workspaceId);
}

/** Removes a guardrail of the workspace (null: the operator's) and its attachments; 404 when it has none of that name. */
export async function removeGuardrail(workspaceId: string | null, name: string, actor?: AuditActor): Promise<void> {
  const scope = scopeOf(workspaceId);
  await db.$transaction(async (tx) => {
    const row = await tx.guardrail.findUnique({ where: { scope_name: { scope, name } } });
    if (!row) throw errors.notFound(`No guardrail named \`${name}\` here.`, "guardrail_not_found", "name");
    await tx.guardrail.delete({ where: { id: row.id } });
    await recordAudit(tx, { workspaceId, actor, action: "guardrail.remove", target: { type: "guardrail", id: row.id }, changes: diff<GuardrailDefinition>(row.definition as GuardrailDefinition, null, AUDITED) });
    await changed(tx, workspaceId);
  });
}
