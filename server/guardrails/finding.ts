// What a guardrail's check found in a text: which of its rules matched, where (offsets in the
// text, [start, end)), and for a redacting guardrail what replaces it. A check that judges a text
// as a whole (moderation, schema, a classifier) finds with start = end = 0 and no replacement.
export type Finding = { rule: string; start: number; end: number; replacement?: string };

/** The text with every finding that has a replacement replaced; findings sorted by start, not overlapping. */
export function applyFindings(text: string, findings: readonly Finding[]): string {
  let out = "";
  let at = 0;
  for (const f of findings) {
    if (f.replacement === undefined || f.start < at || f.end <= f.start) continue;
    out += text.slice(at, f.start) + f.replacement;
    at = f.end;
  }
  return at === 0 ? text : out + text.slice(at);
}

/** Findings sorted by start, the earlier (then the longer) kept where two overlap. */
export function disjoint(findings: Finding[]): Finding[] {
  findings.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  let end = -1;
  for (const f of findings) {
    if (f.end > f.start && f.start < end) continue;
    out.push(f);
    end = Math.max(end, f.end);
  }
  return out;
}

/** A finding in one of the texts a check was given (its index). */
export type TextFinding = Finding & { index: number };

/** What a check found; `replaced`: the texts as a service redacted them itself (one per text given). */
export type CheckResult = { findings: TextFinding[]; replaced?: (string | undefined)[] };
