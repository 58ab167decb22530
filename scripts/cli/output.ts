/** Prints rows as an aligned text table. */
export function table(rows: Record<string, string | number | boolean | null>[]): string {
  if (!rows.length) return "(none)";
  const cols = Object.keys(rows[0]!);
  const cell = (v: unknown) => (v === null || v === undefined ? "-" : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(cols), line(widths.map((w) => "-".repeat(w))), ...rows.map((r) => line(cols.map((c) => cell(r[c]))))].join("\n");
}

export type Output = { json: unknown; text: string; asJson?: boolean };

export function print(out: Output): void {
  process.stdout.write(out.asJson ? `${JSON.stringify(out.json)}\n` : `${out.text}\n`);
}
