// A workspace's audit events as CSV (RFC 4180, the usage export's quoting and formula guard),
// newest first, with a header row; the changes column is the changes as JSON.
import { z } from "zod";
import { csvLine } from "../kernel/csv";
import { auditRows, toAuditView, type AuditFilter } from "./list-audit";

export const MAX_AUDIT_CSV_ROWS = 50_000;
const BATCH = 1_000;
const HEADER = ["time", "actor_type", "actor", "action", "target_type", "target_id", "changes"];

export const ZAuditCsv = z.object({ csv: z.string(), rows: z.number(), truncated: z.boolean() });
export type AuditCsv = z.infer<typeof ZAuditCsv>;


export async function auditCsv(workspaceId: string, filter: AuditFilter): Promise<AuditCsv> {
  const lines = [csvLine(HEADER)];
  let rows = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await auditRows(workspaceId, filter, Math.min(BATCH, MAX_AUDIT_CSV_ROWS - rows), cursor);
    for (const e of page.rows.map(toAuditView)) {
      lines.push(csvLine([e.created_at, e.actor.type, e.actor.name, e.action, e.target.type, e.target.id, JSON.stringify(e.changes)]));
    }
    rows += page.rows.length;
    if (!page.nextCursor) return { csv: lines.join(""), rows, truncated: false };
    if (rows >= MAX_AUDIT_CSV_ROWS) return { csv: lines.join(""), rows, truncated: true };
    cursor = page.nextCursor;
  }
}
