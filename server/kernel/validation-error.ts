// Schema validation failures (zod issues) as the gateway's error: a 400 naming the first bad
// param the way OpenAI does. Shared by the REST adapter and the tRPC error formatter.
import { GatewayError } from "./errors";

export type Issue = { path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>; message: string };

/** ["messages", 0, "role"] -> "messages[0].role", the way OpenAI names a nested param. */
export function formatParam(path: Issue["path"] = []): string | null {
  let out = "";
  for (const seg of path) {
    const key = typeof seg === "object" && seg !== null ? seg.key : seg;
    out += typeof key === "number" ? `[${key}]` : out ? `.${String(key)}` : String(key);
  }
  return out || null;
}

export function validationError(issues: Issue[]): GatewayError {
  const first = issues[0];
  const param = formatParam(first?.path);
  const message = first ? (param ? `Invalid value for '${param}': ${first.message}` : first.message) : "Invalid request";
  return new GatewayError({ status: 400, code: "invalid_value", message, param });
}

export function hasIssues(value: unknown): value is { issues: Issue[] } {
  return typeof value === "object" && value !== null && Array.isArray((value as { issues?: unknown }).issues);
}
