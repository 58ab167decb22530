// A workspace's audit events, newest first, paged by a keyset cursor (time, id) so a page never
// skips or repeats an event while new ones are written. Always scoped by the workspace id the
// caller acts in (never taken from the filter), so no filter reaches another workspace's events.
import { z } from "zod";
import type { Prisma } from "../generated/prisma/client";
import { db } from "../infra/db/client";
import { errors } from "../kernel/errors";

export const ZAuditFilter = z.object({
  /** Actions starting with this, e.g. "key." or "member.role_change". */
  action: z.string().trim().max(100).optional(),
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
});
export type AuditFilter = z.input<typeof ZAuditFilter>;

export const ZAuditListInput = ZAuditFilter.extend({
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(500).default(50),
});
export type AuditListInput = z.input<typeof ZAuditListInput>;

const ZValue: z.ZodType<unknown> = z.unknown();

export const ZAuditEventView = z.object({
  id: z.string(),
  workspace_id: z.string().nullable(),
  action: z.string(),
  actor: z.object({ type: z.enum(["user", "cli", "system"]), id: z.string().nullable(), name: z.string() }),
  target: z.object({ type: z.string(), id: z.string().nullable() }),
  created_at: z.string(),
  changes: z.record(z.string(), z.object({ from: ZValue, to: ZValue })),
});
export type AuditEventView = z.infer<typeof ZAuditEventView>;

export const ZAuditPage = z.object({ events: z.array(ZAuditEventView), nextCursor: z.string().nullable() });
export type AuditPage = z.infer<typeof ZAuditPage>;

type Row = Prisma.AuditEventGetPayload<object>;

export function toAuditView(r: Row): AuditEventView {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    action: r.action,
    actor: { type: r.actorType as AuditEventView["actor"]["type"], id: r.actorId, name: r.actorName },
    target: { type: r.targetType, id: r.targetId },
    created_at: r.createdAt.toISOString(),
    // jsonb keeps its keys in its own order (shortest first): each change is written back as {from, to}.
    changes: Object.fromEntries(
      Object.entries((r.changes ?? {}) as Record<string, { from?: unknown; to?: unknown }>).map(([field, c]) => [field, { from: c.from ?? null, to: c.to ?? null }]),
    ),
  };
}

const encodeCursor = (r: Row) => Buffer.from(`${r.createdAt.toISOString()}|${r.id}`).toString("base64url");

function decodeCursor(cursor: string): { at: Date; id: string } {
  const [at, id] = Buffer.from(cursor, "base64url").toString().split("|");
  const date = new Date(at ?? "");
  if (!id || Number.isNaN(date.getTime())) throw errors.invalidRequest("Invalid cursor.", "cursor");
  return { at: date, id };
}

/** `workspaceId` null: the gateway-wide events (nodes, prices, install settings). */
export async function auditRows(workspaceId: string | null, filter: AuditFilter, limit: number, cursor?: string): Promise<{ rows: Row[]; nextCursor: string | null }> {
  const { action, from, to } = ZAuditFilter.parse(filter);
  const after = cursor ? decodeCursor(cursor) : null;
  const where: Prisma.AuditEventWhereInput = {
    workspaceId,
    ...(action ? { action: { startsWith: action } } : {}),
    ...(from || to ? { createdAt: { ...(from ? { gte: from } : {}), ...(to ? { lt: to } : {}) } } : {}),
    ...(after ? { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] } : {}),
  };
  const rows = await db.auditEvent.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit + 1 });
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null };
}

export async function listAudit(workspaceId: string | null, input: AuditListInput): Promise<AuditPage> {
  const { limit, cursor, ...filter } = ZAuditListInput.parse(input);
  const { rows, nextCursor } = await auditRows(workspaceId, filter, limit, cursor);
  return { events: rows.map(toAuditView), nextCursor };
}
