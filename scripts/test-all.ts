// `npm test`'s last step: the vitest run (unit, integration, API) and the browser tests side by
// side, each with a gateway of its own on the one build made first. The browser tests' output is
// kept in test-results/browser-tests.log and printed once both are done; the exit status is
// non-zero when either failed.
//
//   TEST_SEQUENTIAL=1 npm test     # one after the other (a machine with one core)
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ensureBuilt } from "./lib/build";
import { projectRoot } from "../server/infra/paths";

const distDir = process.env.TEST_DIST_DIR ?? ".next-test";
const log = (line: string) => process.stdout.write(`[npm test] ${line}\n`);

function run(label: string, args: string[], output: "inherit" | string): Promise<number> {
  const started = Date.now();
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    stdio: output === "inherit" ? "inherit" : ["ignore", "pipe", "pipe"],
    env: { ...process.env, TEST_DIST_DIR: distDir },
  });
  // Both streams into one file, which is ended once the child's streams are (not by the first of them).
  const file = output === "inherit" ? null : createWriteStream(output);
  if (file) {
    child.stdout!.pipe(file, { end: false });
    child.stderr!.pipe(file, { end: false });
  }
  return new Promise((resolve) => {
    child.once("close", (code, signal) => {
      log(`${label}: ${code === 0 ? "passed" : `failed (${signal ?? `exit ${code}`})`} after ${Math.round((Date.now() - started) / 1000)} s`);
      if (file) file.end(() => resolve(code ?? 1));
      else resolve(code ?? 1);
    });
  });
}

const bin = (pkg: string, file: string) => path.join(projectRoot, "node_modules", pkg, file);
const vitest = [bin("vitest", "vitest.mjs"), "run"];
const playwright = [bin("@playwright/test", "cli.js"), "test"];

// One build for both runs (each would otherwise find it missing and build it at the same time).
await ensureBuilt(distDir, log);

let codes: number[];
if (process.env.TEST_SEQUENTIAL === "1") {
  codes = [await run("vitest", vitest, "inherit"), await run("browser tests", playwright, "inherit")];
} else {
  mkdirSync(path.join(projectRoot, "test-results"), { recursive: true });
  const browserLog = path.join(projectRoot, "test-results", "browser-tests.log");
  log(`browser tests run beside vitest; their output: ${path.relative(projectRoot, browserLog)}`);
  const browser = run("browser tests", playwright, browserLog);
  const unit = await run("vitest", vitest, "inherit");
  const browserCode = await browser;
  process.stdout.write(`\n[npm test] the browser tests' output:\n${readFileSync(browserLog, "utf8")}\n`);
  codes = [unit, browserCode];
}
process.exit(codes.every((c) => c === 0) ? 0 : 1);
