// `node --import tsx bench/cli-startup.ts [BUNDLE.mjs ...]`: what one start of the admin CLI costs,
// as the tests start it (the bundle tests/setup/global.ts builds) and as `npm run cli` does
// (through the TypeScript loader). Each case runs BENCH_RUNS (10) times one after the other; the
// report gives the median and the lowest of the wall time and of the CPU time the process used
// (user + system, read from /proc: on a shared, busy host the CPU time is the steadier figure).
// The cases need no database: `--help`; a usage error (the command's module loaded, arguments
// refused); `workspace list` against a closed port (everything a database command loads, then
// the connection refused). Bundles (.mjs) or entry files (.ts, run through the loader) named on
// the command line, e.g. built from an older scripts/cli.ts, are measured beside the current one.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { bundleCli } from "../scripts/lib/build";
import { projectRoot } from "../server/infra/paths";

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const TICKS_PER_S = 100; // Linux's USER_HZ, the unit of /proc's times
const CLOSED_DB = "postgresql://bench:bench@127.0.0.1:1/bench";

type Case = { name: string; args: string[]; env?: Record<string, string>; exit: number };
const CASES: Case[] = [
  { name: "--help", args: ["--help"], exit: 0 },
  { name: "key create (usage error)", args: ["key", "create"], exit: 2 },
  { name: "workspace list (db refused)", args: ["workspace", "list"], env: { DATABASE_URL: CLOSED_DB }, exit: 1 },
];

/** CPU time (ms) used so far by the children this process has waited for. */
function childrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  // After "pid (comm) ", cutime and cstime are the 14th and 15th fields.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_S;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

function measure(label: string, nodeArgs: string[]): void {
  for (const c of CASES) {
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const cpu0 = childrenCpuMs();
      const t0 = performance.now();
      const run = spawnSync(process.execPath, [...nodeArgs, ...c.args], { cwd: projectRoot, env: { ...process.env, ...c.env }, encoding: "utf8" });
      wall.push(performance.now() - t0);
      cpu.push(childrenCpuMs() - cpu0);
      if (run.status !== c.exit) throw new Error(`${label} ${c.args.join(" ")}: exit ${run.status}, expected ${c.exit}\n${run.stderr.slice(0, 2000)}`);
    }
    const f = (xs: number[]) => `${Math.round(median(xs))} ms (min ${Math.round(Math.min(...xs))})`;
    process.stdout.write(`${label.padEnd(28)} ${c.name.padEnd(30)} wall ${f(wall).padEnd(22)} cpu ${f(cpu)}\n`);
  }
}

process.stdout.write(`CLI start, ${RUNS} runs of each case; median (lowest)\n`);
for (const other of process.argv.slice(2).map((p) => path.resolve(p))) {
  const name = path.relative(projectRoot, other);
  measure(other.endsWith(".ts") ? `tsx ${name}` : `bundle ${name}`, other.endsWith(".ts") ? ["--import", "tsx", other] : [other]);
}
const bundle = await bundleCli(".next-bench-cli");
measure("bundle (as the tests)", [bundle]);
measure("tsx (as npm run cli)", ["--import", "tsx", path.join(projectRoot, "scripts", "cli.ts")]);
