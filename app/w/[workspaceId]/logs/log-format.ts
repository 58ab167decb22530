// How a log row reads on the Logs page: its status's colour, its caller, its durations.
import type { KeyView } from "@/server/identity/keys/key-view";
import type { LogEntry } from "@/server/request-log/list-logs";

export type Tone = "green" | "indigo" | "amber" | "red";

/** 2xx served, 3xx redirected, 4xx refused (the caller's side), 5xx failed (ours or the node's). */
export function statusTone(status: number): Tone {
  if (status >= 500) return "red";
  if (status >= 400) return "amber";
  if (status >= 300) return "indigo";
  return "green";
}

export const formatMs = (ms: number | null) => (ms === null ? "—" : `${ms.toLocaleString("en-US")} ms`);

/** The time the gateway itself spent: all of the call but the node's part (null when no node was called). */
export const overheadMs = (e: LogEntry) => (e.upstream_ms === null ? null : Math.max(0, e.duration_ms - e.upstream_ms));

/** The key's name and visible start, or its id when it was deleted. */
export function keyLabel(keyId: string, keys: KeyView[]): string {
  const key = keys.find((k) => k.id === keyId);
  return key ? `${key.name} (${key.prefix}…)` : keyId;
}

const KINDS: Record<string, string> = { api_key: "API key", session: "Session token", x402: "x402 payment", user: "Dashboard", none: "No credential" };
export const credentialKind = (kind: string) => KINDS[kind] ?? kind;

/** Who called, in a line: the end user of a session token, the key, the x402 payer, or the kind. */
export function callerLabel(e: LogEntry, keys: KeyView[]): string {
  if (e.credential.subject) return e.credential.subject;
  if (e.credential.key_id) return keyLabel(e.credential.key_id, keys);
  if (e.credential.payer) return e.credential.payer;
  return credentialKind(e.credential.kind);
}
