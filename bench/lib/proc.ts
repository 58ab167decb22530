// What the kernel says about processes (Linux /proc): a process tree, CPU time and resident memory.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** `ticks`: user + system CPU of the process itself; `reaped`: of its children that exited and were waited for. */
type Stat = { pid: number; ppid: number; comm: string; ticks: number; reaped: number };

function stat(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may contain spaces and parentheses: fields resume after the last ")".
    const open = text.indexOf("(");
    const close = text.lastIndexOf(")");
    const fields = text.slice(close + 2).split(" ");
    // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
    const n = (field: number) => Number(fields[field - 3]);
    return { pid, ppid: n(4), comm: text.slice(open + 1, close), ticks: n(14) + n(15), reaped: n(16) + n(17) };
  } catch {
    return null; // gone
  }
}

function allStats(): Stat[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => stat(Number(name)))
    .filter((s): s is Stat => s !== null);
}

/** The given processes and all their descendants (still alive). */
export function processTree(roots: number[]): number[] {
  const children = new Map<number, number[]>();
  for (const s of allStats()) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s.pid]);
  const seen = new Set<number>();
  const queue = roots.filter((pid) => stat(pid) !== null);
  while (queue.length) {
    const pid = queue.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return [...seen];
}

/** Descendants of `root` whose command name is `comm` (e.g. the postgres processes). */
export function descendantsNamed(root: number, comm: string): number[] {
  const names = new Map(allStats().map((s) => [s.pid, s.comm]));
  return processTree([root]).filter((pid) => pid !== root && names.get(pid) === comm);
}

/**
 * CPU time (ms, 10 ms resolution per process) used so far by each of these processes together
 * with its exited children (a PostgreSQL backend that ended, a replaced cluster worker), so a
 * tree's total does not drop when a process in it exits.
 */
export function cpuSnapshot(pids: number[]): Map<number, number> {
  const snapshot = new Map<number, number>();
  for (const pid of pids) {
    const s = stat(pid);
    if (s) snapshot.set(pid, ((s.ticks + s.reaped) * 1000) / TICKS_PER_SECOND);
  }
  return snapshot;
}

/** CPU (ms) these processes used since `before`; a process not in `before` counts from its start. */
export function cpuSince(before: Map<number, number>, pids: number[]): number {
  let ms = 0;
  for (const [pid, now] of cpuSnapshot(pids)) ms += now - (before.get(pid) ?? 0);
  return ms;
}

/** The command name of a process (e.g. "node", "postgres", "esbuild"), or "?" when it is gone. */
export function commandName(pid: number): string {
  return stat(pid)?.comm ?? "?";
}

/** Resident memory of each process in MB (VmRSS). */
export function rssMb(pids: number[]): number[] {
  return pids.map((pid) => {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      return match ? Number(match[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  });
}

/** A process's resident memory by kind, in MB: its own (anonymous: heaps, WebAssembly) and mapped files (code). */
export function rssParts(pid: number): { anon: number; file: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
    return { anon: kb("RssAnon"), file: kb("RssFile") + kb("RssShmem") };
  } catch {
    return { anon: 0, file: 0 };
  }
}

/**
 * A process's resident memory by where it is mapped, in MB (from /proc/<pid>/smaps): malloc's heap
 * (`[heap]`), anonymous mappings (V8's heap and code, WebAssembly memories, malloc's large blocks,
 * thread stacks: they cannot be told apart here) and mapped files (code).
 */
export function rssByMapping(pid: number): { heap: number; anon: number; file: number } {
  const out = { heap: 0, anon: 0, file: 0 };
  try {
    let kind: keyof typeof out = "anon";
    for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
      const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
      if (head) {
        const name = head[1]!;
        kind = name === "[heap]" ? "heap" : name && !name.startsWith("[") ? "file" : "anon";
        continue;
      }
      const rss = /^Rss:\s+(\d+) kB/.exec(line);
      if (rss) out[kind] += Number(rss[1]) / 1024;
    }
  } catch {
    // gone
  }
  return out;
}

/**
 * Proportional memory of each process in MB (Pss from smaps_rollup): a page shared by n processes
 * (the node binary's code, shared libraries, pages a forked worker still shares) counts 1/n in
 * each, so the sum over a group is the memory the group takes, where summed RSS counts shared
 * pages once per process.
 */
export function pssMb(pids: number[]): number[] {
  return pids.map((pid) => {
    try {
      const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
      return match ? Number(match[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  });
}

/** The whole machine's CPU time so far, busy and in all (ms, summed over cores). */
export function machineCpu(): { busyMs: number; totalMs: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;
  return { busyMs: ms(total - idle), totalMs: ms(total) };
}
