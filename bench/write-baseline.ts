// Makes finished runs of `npm run bench` the committed baseline (bench/baseline.json), from the
// results they wrote as JSON: each figure is its median over the runs given (one run: its own).
//   node --import tsx bench/write-baseline.ts /tmp/gateway-bench-<date>.json [more runs' JSON...]
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { BASELINE_FILE, figuresOf, medianFigures, writeBaseline } from "./lib/baseline";
import type { BenchResults } from "./lib/report";

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: node --import tsx bench/write-baseline.ts <results.json> [...]");
const runs = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as BenchResults);
const latest = runs.map((r) => r.date).sort().at(-1)!;
writeBaseline(medianFigures(runs.map(figuresOf)), execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim(), latest, runs.length);
process.stdout.write(`${readFileSync(BASELINE_FILE, "utf8")}`);
