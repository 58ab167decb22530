// What an API key may call: operation groups (each /v1 operation declares the one it belongs to,
// server/contract/operation.ts), models, and MCP tools (tool-patterns.ts). A key made without restrictions, and every key made
// before restrictions existed, may call everything: in the database an empty list means "all".
import { z } from "zod";
import { ZToolPatterns } from "./tool-patterns";

/** The operation groups, in the order forms and listings show them. */
export const KEY_PERMISSIONS = ["models", "text", "embeddings", "audio", "images", "videos", "sessions", "files", "batches", "mcp", "fine_tuning"] as const;
export type KeyPermission = (typeof KEY_PERMISSIONS)[number];

export const PERMISSION_LABELS: Record<KeyPermission, string> = {
  models: "Models (list and retrieve, network status)",
  text: "Text (chat completions, responses, conversations, moderations)",
  embeddings: "Embeddings",
  audio: "Audio (speech, transcriptions, translations)",
  images: "Images",
  videos: "Videos",
  sessions: "Sessions (mint and revoke session tokens)",
  files: "Files",
  batches: "Batches",
  mcp: "MCP tools (the /mcp endpoint and the responses API's mcp tool)",
  fine_tuning: "Fine-tuning",
};

/** A list of groups as stored and shown: no duplicates, in KEY_PERMISSIONS order. */
const ZPermissionList = z
  .array(z.enum(KEY_PERMISSIONS, { error: (i) => `unknown permission "${String(i.input)}"; one of ${KEY_PERMISSIONS.join(", ")}` }))
  .min(1, "name at least one permission, or leave it out for all")
  .transform((list) => KEY_PERMISSIONS.filter((p) => list.includes(p)));

/** A list of model ids: no duplicates; empty means every model, so a restriction names at least one. */
const ZModelList = z
  .array(z.string().trim().min(1).max(200))
  .min(1, "name at least one model, or leave it out for every model")
  .max(500)
  .transform((list) => [...new Set(list)]);

/** What a key is created with; each absent field means no restriction. Shared by the CLI, the dashboard's form and its procedure. */
export const ZKeyRestrictions = z.object({
  permissions: ZPermissionList.optional(),
  models: ZModelList.optional(),
  /** Patterns of the MCP tools (`<server>__<tool>`) the key may use, within its plan's. */
  tools: ZToolPatterns.optional(),
});

/** The restrictions a verified key carries (with its cached record, so checking costs no round trip); null: none. */
export type KeyGrant = {
  /** null: every operation group. */
  permissions: ReadonlySet<KeyPermission> | null;
  /** null: every model (its plan's). */
  models: ReadonlySet<string> | null;
  /** null: every tool (its plan's); else patterns for toolAllowed/mayUseTool (tool-patterns.ts). */
  tools: readonly string[] | null;
};

/** The grant of a key row's stored lists (null or empty: unrestricted), or null when it has none. */
export function grantOf(permissions: readonly string[] | null, models: readonly string[] | null, tools: readonly string[] | null): KeyGrant | null {
  const groups = permissions?.length ? new Set(permissions as KeyPermission[]) : null;
  const ids = models?.length ? new Set(models) : null;
  const patterns = tools?.length ? tools : null;
  return groups || ids || patterns ? { permissions: groups, models: ids, tools: patterns } : null;
}
