// Writing one audit event. Services call this at the place a change happens, inside the
// transaction that makes it when there is one, so an event exists exactly when its change
// committed. `changes` comes from diff() (diff.ts), which never holds a secret's value.
import type { Db, Tx } from "../infra/db/client";
import { randomBase62 } from "../kernel/ids";
import { actorColumns, SYSTEM_ACTOR, type AuditActor } from "./actor";
import type { AuditAction } from "./actions";
import type { AuditChanges } from "./diff";

export { diff, SECRET } from "./diff";
export type { AuditActor } from "./actor";
export type { AuditChanges } from "./diff";

export type AuditTarget = { type: string; id?: string | null };

export type AuditEventInput = {
  /** null: a gateway-wide change (nodes, prices, install settings). */
  workspaceId: string | null;
  /** Absent: the gateway itself (a service called by no person, e.g. while opening a workspace). */
  actor?: AuditActor;
  action: AuditAction;
  target: AuditTarget;
  changes?: AuditChanges;
};

let lastMs = 0;
let seq = 0;

/**
 * `aud_` + the time in hex + a per-process sequence + random: ids of one process sort in the order
 * they were made, so events written in the same millisecond (one transaction) keep their order.
 */
export function newAuditId(now = Date.now()): string {
  seq = now === lastMs ? seq + 1 : 0;
  lastMs = now;
  return `aud_${now.toString(16).padStart(12, "0")}${seq.toString(16).padStart(4, "0")}${randomBase62(12)}`;
}

export async function recordAudit(client: Tx | Db, event: AuditEventInput): Promise<void> {
  const now = new Date();
  await client.auditEvent.create({
    data: {
      id: newAuditId(now.getTime()),
      workspaceId: event.workspaceId,
      ...actorColumns(event.actor ?? SYSTEM_ACTOR),
      action: event.action,
      targetType: event.target.type,
      targetId: event.target.id ?? null,
      changes: event.changes ?? {},
      createdAt: now,
    },
  });
}
