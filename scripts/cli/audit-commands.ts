// npm run cli -- audit WORKSPACE_ID: the workspace's audit log, newest first.
import { listAudit, type AuditEventView } from "../../server/audit/list-audit";
import { parse, UsageError, type Command } from "./args";
import { wholeNumber } from "./flag-values";
import { table } from "./output";
import { requireWorkspace } from "./require-workspace";

/** The argument that lists the gateway-wide events (nodes, prices, install settings). */
const GATEWAY = "gateway";
const MAX_LIMIT = 500;

const summary = (changes: AuditEventView["changes"]) =>
  Object.entries(changes)
    .map(([field, c]) => `${field}: ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}`)
    .join("; ") || null;

export const auditCommands: Record<string, Command> = {
  audit: (argv) => {
    const { values, args } = parse(argv, { limit: { type: "string" }, action: { type: "string" } }, ["WORKSPACE_ID"]);
    const limit = wholeNumber(values.limit, "limit") ?? 50;
    if (limit > MAX_LIMIT) throw new UsageError(`--limit must be at most ${MAX_LIMIT}, got ${limit}`);
    const target = args[0]!;
    return async () => {
      const workspaceId = target === GATEWAY ? null : target;
      if (workspaceId) await requireWorkspace(workspaceId);
      const page = await listAudit(workspaceId, { limit, action: values.action });
      const events = page.events.map((e) => ({ action: e.action, actor: e.actor, target: e.target, created_at: e.created_at, changes: e.changes }));
      const rows = page.events.map((e) => ({
        time: e.created_at,
        actor: e.actor.type === "user" ? e.actor.name : `${e.actor.type} (${e.actor.name})`,
        action: e.action,
        target: `${e.target.type} ${e.target.id ?? ""}`.trim(),
        changes: summary(e.changes),
      }));
      return { json: { events }, text: table(rows), asJson: values.json };
    };
  },
};
