// The key of a cacheable call: the SHA-256 of its canonical request (RFC 8785 JSON: sorted keys,
// one number form), the validated input of its operation with the fields that do not change the
// answer left out. It is looked up within the caller's workspace (and scope) only, never across.
import { hash } from "node:crypto";
import canonicalize from "canonicalize";

/** Fields that label or route a call without changing its answer. */
const LABELS = new Set(["user", "metadata", "safety_identifier", "prompt_cache_key", "store", "service_tier"]);

/** Why a call of a cached operation is not cached whatever the directive (null: it may be). */
export function notCacheable(opId: string, input: Record<string, unknown>): string | null {
  if (opId === "responses.create" && (input.previous_response_id || input.background || input.conversation)) return "stateful";
  // A response with `mcp` tools calls them: its answer is never served again without them.
  if (opId === "responses.create" && Array.isArray(input.tools) && input.tools.some((t) => (t as { type?: unknown } | null)?.type === "mcp")) return "mcp tools";
  return null;
}

/** The one-shot `hash`: a Hash object's create, update and digest cost three times as much (keys/key-secret.ts). */
export function cacheKey(opId: string, input: Record<string, unknown>): string {
  const kept: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input)) if (!LABELS.has(field) && value !== undefined) kept[field] = value;
  return hash("sha256", canonicalize({ op: opId, input: kept }) ?? "", "hex");
}
