// A column of a batched statement as PostgreSQL's array literal (`{"a","b",NULL}`), made in one
// pass: the text pg would make of a JavaScript array (every element quoted, `"` and `\` escaped),
// without its two regular-expression replaces and a prepared value per element. The batched
// writers send one such literal per column (`unnest($1::text[], ...)`), so a call's log row and
// usage event cost a few string appends instead of ~60 element conversions.
const SPECIAL = /["\\]/;
const ESCAPE = /["\\]/g;

export type ArrayElement = string | number | boolean | bigint | null | undefined;

export function pgArray(values: readonly ArrayElement[]): string {
  let out = "{";
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i) out += ",";
    if (v == null) {
      out += "NULL";
      continue;
    }
    const s = typeof v === "string" ? v : String(v);
    out += SPECIAL.test(s) ? `"${s.replace(ESCAPE, "\\$&")}"` : `"${s}"`;
  }
  return `${out}}`;
}
