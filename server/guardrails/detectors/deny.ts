// A deny list: RE2 patterns (linear time on any text, whatever a tenant writes) and words or
// phrases, both case-insensitive. Words match on word boundaries and are compiled into one
// alternation of escaped literals (no backtracking to fear); a finding's rule names the pattern
// (`pattern:<index>`) or `word`, never the word itself (the log must not repeat the forbidden text).
import { RE2JS } from "re2js";
import type { Finding } from "../finding";

export type DenyList = { patterns: RE2JS[]; words: RegExp | null };

const ESCAPE = /[.*+?^${}()|[\]\\]/g;

/** Compiles a tenant's pattern, or says why it is not RE2 (no backreferences, no lookaround). */
export function compileDenyPattern(pattern: string): RE2JS | string {
  try {
    return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export function compileDenyList(patterns: readonly string[], words: readonly string[]): DenyList {
  const compiled = patterns.map(compileDenyPattern).filter((p): p is RE2JS => typeof p !== "string");
  const alternation = words.map((w) => w.trim().replace(ESCAPE, "\\$&").replace(/\s+/g, "\\s+")).filter(Boolean);
  return { patterns: compiled, words: alternation.length ? new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternation.join("|")})(?![\\p{L}\\p{N}_])`, "giu") : null };
}

/** Every match of the list in the text; `replacement` set when the guardrail redacts. */
export function findDenied(list: DenyList, text: string, replacement?: string): Finding[] {
  const out: Finding[] = [];
  list.patterns.forEach((p, i) => {
    const m = p.matcher(text);
    while (m.find()) {
      if (m.end() === m.start()) continue; // an empty match finds nothing
      out.push({ rule: `pattern:${i}`, start: m.start(), end: m.end(), replacement });
    }
  });
  if (list.words) {
    for (const m of text.matchAll(list.words)) out.push({ rule: "word", start: m.index, end: m.index + m[0].length, replacement });
  }
  return out;
}
