// Makes a finished run of `npm run bench` the committed baseline (bench/baseline.json), from the
// results it wrote as JSON:  node --import tsx bench/write-baseline.ts /tmp/gateway-bench-<date>.json
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { BASELINE_FILE, figuresOf, writeBaseline } from "./lib/baseline";
import type { BenchResults } from "./lib/report";

const file = process.argv[2];
if (!file) throw new Error("usage: node --import tsx bench/write-baseline.ts <results.json>");
const results = JSON.parse(readFileSync(file, "utf8")) as BenchResults;
writeBaseline(figuresOf(results), execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim(), results.date);
process.stdout.write(`${readFileSync(BASELINE_FILE, "utf8")}`);
