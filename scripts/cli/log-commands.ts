import { listLogs, type LogEntry } from "../../server/request-log/list-logs";
import { parse, UsageError, type Command } from "./args";
import { table } from "./output";
import { requireWorkspace } from "./require-workspace";

const STATUS = new Set(["2xx", "3xx", "4xx", "5xx"]);

const rows = (logs: LogEntry[]) =>
  logs.map((l) => ({
    time: l.created_at,
    request: l.request_id,
    route: `${l.method} ${l.route}`,
    model: l.model,
    status: l.error_code ? `${l.status} ${l.error_code}` : String(l.status),
    credential: l.credential.key_id ?? l.credential.subject ?? l.credential.payer ?? l.credential.kind,
    ms: Math.round(l.duration_ms),
    cost: l.cost,
    tags: Object.entries(l.tags).map(([k, v]) => `${k}=${v}`).join(",") || null,
  }));

export const logCommands: Record<string, Command> = {
  logs: (argv) => {
    const { values, args } = parse(
      argv,
      { status: { type: "string" }, code: { type: "string" }, key: { type: "string" }, tag: { type: "string" }, model: { type: "string" }, limit: { type: "string" } },
      ["WORKSPACE_ID"],
    );
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    const filter = {
      status: values.status as "2xx" | "4xx" | "5xx" | undefined,
      code: values.code,
      keyId: values.key,
      tag: values.tag,
      model: values.model,
      limit,
    };
    if (filter.status && !STATUS.has(filter.status)) throw new UsageError("--status must be 2xx, 3xx, 4xx or 5xx");
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new UsageError("--limit must be an integer from 1 to 500");
    return async () => {
      await requireWorkspace(args[0]!);
      const { logs } = await listLogs(args[0]!, filter);
      const json = {
        logs: logs.map((l) => ({
          request_id: l.request_id,
          created_at: l.created_at,
          route: l.route,
          method: l.method,
          model: l.model,
          status: l.status,
          error_code: l.error_code,
          credential: l.credential,
          duration_ms: l.duration_ms,
          upstream_ms: l.upstream_ms,
          cost: l.cost,
          cache: l.cache,
          tags: l.tags,
        })),
      };
      return { json, text: table(rows(logs)), asJson: values.json };
    };
  },
};
