// `npm run bench:pg-array`: the batched writers' array parameters, made by pg from JavaScript
// arrays (its prepareValue: an element converted and escaped by two replaces at a time) against
// pgArray (server/infra/db/pg-array.ts), for a request-log row's 28 columns in batches of 1, 4
// and 16 rows (the batch a turn of the event loop gathers under load). In process; µs per row,
// median of BENCH_ROUNDS (5). The literals are checked equal first.
//
//   npm run bench:pg-array
import { createRequire } from "node:module";
import { pgArray, type ArrayElement } from "../server/infra/db/pg-array";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const pg = createRequire(import.meta.url)("pg/lib/utils.js") as { prepareValue: (v: unknown) => string };
const row = (i: number): ArrayElement[] => [
  `req_8f3a9c0d1e2f3a4b5c6d${i}`, "2026-11-30T17:20:01.123Z", "ws_abc123def456", "POST", "/v1/chat/completions", "mock-model", "node_1234", "api_key",
  "key_abcdef", null, null, null, 200, null, 3, 1, null, 12, 9, "0.000012345678901234", false, null, null, "127.0.0.1", "autocannon/7.15", null, null, false,
];
const ways: Record<string, (column: ArrayElement[]) => string> = { "pg's prepareValue": (c) => pg.prepareValue(c), pgArray };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`A request-log row's 28 columns as array literals, µs per row (median of ${ROUNDS} rounds of ${ROWS} rows):\n`);
console.log("| rows per batch | pg's prepareValue | pgArray |\n|---|---|---|");
for (const batch of [1, 4, 16]) {
  const rows = Array.from({ length: batch }, (_, i) => row(i));
  const columns = rows[0]!.map((_, c) => rows.map((r) => r[c]));
  for (const c of columns) if (pgArray(c) !== pg.prepareValue(c)) throw new Error(`the literals differ: ${pgArray(c)} against ${pg.prepareValue(c)}`);
  const times: Record<string, number[]> = { "pg's prepareValue": [], pgArray: [] };
  for (let r = -1; r < ROUNDS; r++) {
    for (const [name, make] of Object.entries(ways)) {
      const started = process.hrtime.bigint();
      let bytes = 0;
      // Each literal's length is read, so it is made whole (flattened) as a socket write would.
      for (let n = 0; n < ROWS / batch; n++) for (const c of columns) bytes += Buffer.byteLength(make(c));
      const ns = Number(process.hrtime.bigint() - started);
      if (r >= 0 && bytes > 0) times[name]!.push(ns / 1000 / ROWS);
    }
  }
  console.log(`| ${batch} | ${median(times["pg's prepareValue"]!).toFixed(2)} | ${median(times.pgArray!).toFixed(2)} |`);
}
