// `npm test`'s last step: the vitest run (unit, integration, API), then the browser tests, each
// with a gateway of its own on the one build made first. Their output is kept in test-results/
// (vitest.log, browser-tests.log), and the failures of both are listed again last (where a CI
// log's tail shows them); the exit status is non-zero when either failed.
//
// One after the other by default. Side by side is about 7 minutes faster, but on 2 cores its load
// made timing-bound tests (cross-instance propagation, timeouts, concurrency slots) fail in every
// fresh-clone run. TEST_PARALLEL=1 runs them side by side (a machine with more cores).
//
//   TEST_PARALLEL=1 npm test
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ensureBuilt } from "./lib/build";
import { projectRoot } from "../server/infra/paths";

const distDir = process.env.TEST_DIST_DIR ?? ".next-test";
const log = (line: string) => process.stdout.write(`[npm test] ${line}\n`);

// The lines of a vitest or Playwright report that name a failure, and their totals.
const failureLine = /(^|\s)(FAIL|✘|✗|×)\s|^\s*\d+\) |\b(Test Files|Tests)\s+\d|\d+ (failed|flaky|passed)\b|^\s*\w*Error\b/;

// Plain text in the logs the summary reads (FORCE_COLOR, even "0", turns colours on in vitest).
const withoutColor = ({ FORCE_COLOR: _, ...env }: NodeJS.ProcessEnv) => env;

/** Runs one suite; its output goes to `output` (a file) and, when `echo`, to this process's too. */
function run(label: string, args: string[], output: string, echo: boolean): Promise<number> {
  const started = Date.now();
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...withoutColor(process.env), TEST_DIST_DIR: distDir, NO_COLOR: "1" },
  });
  // Both streams into one file, which is ended once the child's streams are (not by the first of them).
  const file = createWriteStream(output);
  child.stdout!.pipe(file, { end: false });
  child.stderr!.pipe(file, { end: false });
  if (echo) {
    child.stdout!.pipe(process.stdout, { end: false });
    child.stderr!.pipe(process.stderr, { end: false });
  }
  return new Promise((resolve) => {
    child.once("close", (code, signal) => {
      log(`${label}: ${code === 0 ? "passed" : `failed (${signal ?? `exit ${code}`})`} after ${Math.round((Date.now() - started) / 1000)} s`);
      file.end(() => resolve(code ?? 1));
    });
  });
}

const bin = (pkg: string, file: string) => path.join(projectRoot, "node_modules", pkg, file);
const vitest = [bin("vitest", "vitest.mjs"), "run"];
const playwright = [bin("@playwright/test", "cli.js"), "test"];

// One build for both suites, made before either starts (side by side, each would otherwise find it
// missing and build it at the same time).
await ensureBuilt(distDir, log);

const logs = path.join(projectRoot, "test-results");
mkdirSync(logs, { recursive: true });
const unitLog = path.join(logs, "vitest.log");
const browserLog = path.join(logs, "browser-tests.log");
let codes: [number, number];
if (process.env.TEST_PARALLEL !== "1") {
  codes = [await run("vitest", vitest, unitLog, true), await run("browser tests", playwright, browserLog, true)];
} else {
  log(`browser tests run beside vitest; their output: ${path.relative(projectRoot, browserLog)}`);
  const browser = run("browser tests", playwright, browserLog, false);
  const unit = await run("vitest", vitest, unitLog, true);
  const browserCode = await browser;
  process.stdout.write(`\n[npm test] the browser tests' output:\n${readFileSync(browserLog, "utf8")}\n`);
  codes = [unit, browserCode];
}

const summary = (label: string, file: string, code: number) => {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => failureLine.test(l));
  const unique = [...new Set(lines.map((l) => l.trimEnd()))].slice(-60);
  log(`${label}: ${code === 0 ? "passed" : "FAILED"}${code === 0 ? "" : `; its failures:\n${unique.join("\n")}`}`);
};
summary("vitest", unitLog, codes[0]);
summary("browser tests", browserLog, codes[1]);
process.exit(codes.every((c) => c === 0) ? 0 : 1);
