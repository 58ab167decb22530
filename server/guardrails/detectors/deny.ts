// A deny list: RE2 patterns (linear time on any text, whatever a tenant writes) and words or
// phrases, both case-insensitive. Words match on word boundaries and are compiled into one
// alternation of escaped literals (no backtracking to fear); a finding's rule names the pattern
// (`pattern:<index>`) or `word`, never the word itself (the log must not repeat the forbidden text).
import { RE2JS } from "re2js";
import type { Finding } from "../finding";

/**
 * `any`: the patterns as one alternation, which answers "does any match?" in one pass of RE2's DFA
 * (about 45 µs over 4 KB for 20 patterns, where finding each pattern's matches takes 200 µs a
 * pattern): only a text that matches pays for finding where.
 */
export type DenyList = { patterns: RE2JS[]; any: RE2JS | null; words: RegExp | null };

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
  const any = compiled.length > 1 ? compileDenyPattern(compiled.map((p) => `(?:${p.pattern()})`).join("|")) : (compiled[0] ?? null);
  const alternation = words.map((w) => w.trim().replace(ESCAPE, "\\$&").replace(/\s+/g, "\\s+")).filter(Boolean);
  return { patterns: compiled, any: typeof any === "string" ? null : any, words: alternation.length ? new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternation.join("|")})(?![\\p{L}\\p{N}_])`, "giu") : null };
}

/** Every match of the list in the text; `replacement` set when the guardrail redacts. */
export function findDenied(list: DenyList, text: string, replacement?: string): Finding[] {
  const out: Finding[] = [];
  if (list.any && !list.any.test(text)) return list.words ? wordsIn(list.words, text, replacement) : out;
  list.patterns.forEach((p, i) => {
    const m = p.matcher(text);
    while (m.find()) {
      if (m.end() === m.start()) continue; // an empty match finds nothing
      out.push({ rule: `pattern:${i}`, start: m.start(), end: m.end(), replacement });
    }
  });
  if (list.words) out.push(...wordsIn(list.words, text, replacement));
  return out;
}

function wordsIn(words: RegExp, text: string, replacement: string | undefined): Finding[] {
  const out: Finding[] = [];
  for (const m of text.matchAll(words)) out.push({ rule: "word", start: m.index, end: m.index + m[0].length, replacement });
  return out;
}
