// The batched writers send each column as one array literal (server/infra/db/pg-array.ts). The
// literal must be the text pg itself would send for the JavaScript array, and PostgreSQL must read
// every value back as it was: quotes, backslashes, braces, commas, the word NULL, empty strings,
// unicode, numbers, booleans and nulls.
import { describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { pgArray, type ArrayElement } from "../../server/infra/db/pg-array";
import { writePool } from "../../server/infra/db/write-pool";

const pgUtils = createRequire(import.meta.url)("pg/lib/utils.js") as { prepareValue: (v: unknown) => unknown };
const texts = ["plain", "", "NULL", "null", 'a "quoted" word', "back\\slash", "\\\"", "{braces}", "a,b", " spaced ", "tab\tnew\nline", "héllo ✓ 𝄞", "\\x00ff", "'single'"];

describe("pgArray", () => {
  it("makes the literal pg makes of the same array", () => {
    const cases: ArrayElement[][] = [texts, [null, "x", undefined, ""], [0, 1, -5, 2147483647, 1.5], [true, false, null], ["0.000012345678901234", "-3.5"], []];
    for (const values of cases) expect(pgArray(values)).toBe(pgUtils.prepareValue(values));
  });

  it("makes the same literal on its quick paths: a column all NULL, and one with no NULL and nothing to escape", () => {
    const allNull = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? null : undefined));
    const cases: ArrayElement[][] = [[null], allNull(3), allNull(500), allNull(1500), allNull(3), ["x"], ["a", "b", ""], [1, 2.5, -3], [true, false, true], [7n, -8n], ["a", 1, true, 2n]];
    for (const values of cases) expect(pgArray(values)).toBe(pgUtils.prepareValue(values));
    // Either way round a quick path's test: an element to escape after plain ones, a NULL after them.
    for (const values of [["a", "b", 'c"'], ["a", "b\\"], ["a", null], [null, null, "x"]] as ArrayElement[][]) expect(pgArray(values)).toBe(pgUtils.prepareValue(values));
  });

  it("reads back in PostgreSQL as every value was", async () => {
    const withNull = [...texts, null];
    const { rows } = await writePool().query<{ t: string | null; n: number | null; b: boolean | null; d: string | null }>(
      "SELECT t, n, b, d::text AS d FROM unnest($1::text[], $2::int[], $3::bool[], $4::numeric[]) AS i(t, n, b, d)",
      [pgArray(withNull), pgArray(withNull.map((_, i) => (i % 3 ? i : null))), pgArray(withNull.map((_, i) => (i % 4 ? i % 2 === 0 : null))), pgArray(withNull.map((_, i) => (i % 5 ? `0.${"0".repeat(i)}1` : null)))],
    );
    expect(rows.map((r) => r.t)).toEqual(withNull);
    expect(rows.map((r) => r.n)).toEqual(withNull.map((_, i) => (i % 3 ? i : null)));
    expect(rows.map((r) => r.b)).toEqual(withNull.map((_, i) => (i % 4 ? i % 2 === 0 : null)));
    expect(rows.map((r) => r.d)).toEqual(withNull.map((_, i) => (i % 5 ? `0.${"0".repeat(i)}1` : null)));
  });
});
