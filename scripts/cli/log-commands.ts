import { cliActor } from "../../server/audit/actor";
import { getCaptureSettings, setCaptureSettings, setKeyCapture } from "../../server/request-log/capture/capture-settings";
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
  capture: (argv) => {
    const { values, args } = parse(
      argv,
      {
        enable: { type: "boolean" },
        disable: { type: "boolean" },
        inherit: { type: "boolean" },
        "max-bytes": { type: "string" },
        redact: { type: "string", multiple: true },
        "no-redact": { type: "boolean" },
        key: { type: "string" },
      },
      ["WORKSPACE_ID"],
    );
    const choices = [values.enable, values.disable, values.inherit].filter(Boolean).length;
    if (choices > 1) throw new UsageError("give one of --enable, --disable, --inherit");
    if (values.inherit && !values.key) throw new UsageError("--inherit is for a key (--key KEY_ID)");
    if (values.redact && values["no-redact"]) throw new UsageError("give --redact or --no-redact, not both");
    const maxBytes = values["max-bytes"] === undefined ? undefined : Number(values["max-bytes"]);
    if (maxBytes !== undefined && !Number.isInteger(maxBytes)) throw new UsageError("--max-bytes must be a whole number of bytes");
    const workspaceId = args[0]!;
    if (values.key) {
      if (!choices) throw new UsageError("--key needs --enable, --disable or --inherit");
      if (maxBytes !== undefined || values.redact || values["no-redact"]) throw new UsageError("--max-bytes and --redact are the workspace's, not a key's");
      const capture = values.enable ? true : values.disable ? false : null;
      return async () => {
        await requireWorkspace(workspaceId);
        const json = await setKeyCapture(workspaceId, values.key!, capture, cliActor());
        return { json, text: `key ${json.key_id}: capture ${json.capture === null ? "as the workspace" : json.capture ? "on" : "off"}`, asJson: values.json };
      };
    }
    const patch = {
      ...(choices && { enabled: Boolean(values.enable) }),
      ...(maxBytes !== undefined && { max_bytes: maxBytes }),
      ...(values.redact && { redact_patterns: values.redact }),
      ...(values["no-redact"] && { redact_patterns: [] }),
    };
    return async () => {
      await requireWorkspace(workspaceId);
      const json = Object.keys(patch).length ? await setCaptureSettings(workspaceId, patch, cliActor()) : await getCaptureSettings(workspaceId);
      const text = `capture ${json.enabled ? "on" : "off"}, ${json.max_bytes} bytes per body, ${json.redact_patterns.length} redaction pattern(s)`;
      return { json, text, asJson: values.json };
    };
  },
};
