// How a captured call's bodies are kept: the workspace's capture settings (from the request path's
// cache of its rules, identity/plans/plan-cache.ts captureFor, which says whether they apply)
// made ready to use. The workspace's redaction patterns are RE2 expressions (linear time whatever
// the text: a pattern cannot stall the gateway), compiled once per load of the settings.
import { RE2JS } from "re2js";
import type { CaptureSettings } from "../../identity/plans/plan-cache";

export type CapturePolicy = {
  /** The most of each body kept: bytes of its JSON text. */
  maxBytes: number;
  /** The workspace's own patterns, compiled. */
  patterns: readonly RE2JS[];
};

export const MIN_CAPTURE_BYTES = 1024;
export const MAX_CAPTURE_BYTES = 1_048_576;

const compiled = new WeakMap<CaptureSettings, CapturePolicy>();

/** Compiles a pattern, or says why it is not one (RE2 syntax: no backreferences, no lookaround). */
export function compilePattern(pattern: string): RE2JS | string {
  try {
    return RE2JS.compile(pattern);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export function policyOf(settings: CaptureSettings): CapturePolicy {
  let policy = compiled.get(settings);
  if (!policy) {
    const patterns = settings.patterns.map(compilePattern).filter((p): p is RE2JS => typeof p !== "string");
    policy = { maxBytes: Math.min(MAX_CAPTURE_BYTES, Math.max(MIN_CAPTURE_BYTES, settings.maxBytes)), patterns };
    compiled.set(settings, policy);
  }
  return policy;
}
