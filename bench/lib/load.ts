// Runs one load (fixed rate or autocannon) in a child process and measures the CPU that groups of
// processes (the target's, the load generator's) and the whole machine spent while it ran.
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import type { CannonResult, CannonSpec } from "../load/cannon";
import type { LoadSpec } from "../load/child";
import type { RateResult, RateSpec } from "../load/fixed-rate";
import { cpuSince, cpuSnapshot, machineCpu, processTree } from "./proc";
import { QUIET_SHARE, waitForQuiet } from "./quiet";

const CHILD = path.join(import.meta.dirname, "..", "load", "child.ts");
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/**
 * CPU spent while the measured load ran: by each group of processes (ms); the machine's busy
 * share of all cores; and the share taken by processes outside this bench (others' builds and
 * tests on a shared machine), which makes a row unreliable when it is not near 0.
 */
export type LoadCpu = { cpuMs: Record<string, number>; machineBusy: number; foreignBusy: number };
export type PidGroups = Record<string, () => number[]>;

export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

async function runChild<T>(spec: LoadSpec, groups: PidGroups): Promise<T & LoadCpu> {
  await waitForQuiet(log);
  const proc = spawn(process.execPath, ["--import", "tsx", CHILD, JSON.stringify(spec)], {
    stdio: ["ignore", "pipe", "inherit"],
    env: childEnv(),
  });
  const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
  // The load generator's own CPU is measured too: it shares the cores with what it measures.
  const all: PidGroups = { ...groups, "load generator": () => [proc.pid!] };
  let before: [string, Map<number, number>][] = [];
  let machine0 = machineCpu();
  let bench0 = new Map<number, number>();
  let result: T | undefined;
  let cpu: LoadCpu = { cpuMs: {}, machineBusy: 0, foreignBusy: 0 };
  for await (const line of createInterface({ input: proc.stdout! })) {
    if (line === "start") {
      before = Object.entries(all).map(([name, list]) => [name, cpuSnapshot(list())]);
      bench0 = cpuSnapshot(processTree([process.pid]));
      machine0 = machineCpu();
    } else if (line.startsWith("{")) {
      const machine = machineCpu();
      const benchMs = cpuSince(bench0, processTree([process.pid]));
      const span = machine.totalMs - machine0.totalMs;
      const busyMs = machine.busyMs - machine0.busyMs;
      const machineBusy = span > 0 ? busyMs / span : 0;
      const foreignBusy = span > 0 ? Math.max(0, busyMs - benchMs) / span : 0;
      cpu = { cpuMs: Object.fromEntries(before.map(([name, snapshot]) => [name, cpuSince(snapshot, all[name]!())])), machineBusy, foreignBusy };
      result = JSON.parse(line) as T;
    }
  }
  const code = await exited;
  if (!result) throw new Error(`load generator exited (code ${code}) without a result`);
  return { ...result, ...cpu };
}

/** A row done again (up to BENCH_RETRIES times, default 1) when other processes took more than QUIET_SHARE of the CPU. */
const RETRIES = Number(process.env.BENCH_RETRIES ?? 1);
export type Measured<T> = T & LoadCpu & { attempts: number; discardedRequests: number };

async function measured<T>(spec: LoadSpec, groups: PidGroups, requests: (r: T) => number, retries = RETRIES): Promise<Measured<T>> {
  let discardedRequests = 0;
  for (let attempt = 1; ; attempt++) {
    const r = await runChild<T>(spec, groups);
    if (r.foreignBusy <= QUIET_SHARE || attempt > retries) return { ...r, attempts: attempt, discardedRequests };
    log(`other processes took ${Math.round(r.foreignBusy * 100)}% of the CPU during the row: measuring it again`);
    discardedRequests += requests(r);
  }
}

export const runRate = (spec: Omit<RateSpec, "kind">, groups: PidGroups) => measured<RateResult>({ kind: "rate", ...spec }, groups, (r) => r.sent + r.warmup);
export const runCannon = (spec: Omit<CannonSpec, "kind">, groups: PidGroups, retries = RETRIES) =>
  measured<CannonResult>({ kind: "cannon", ...spec }, groups, (r) => r.requests, retries);
