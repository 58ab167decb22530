// Lowering a PostgreSQL backend's CPU priority, for the embedded database whose processes run on
// the gateway's own machine (write-pool.ts lowers the backends of its writes behind the answers).
// Two things decide how much CPU a process gets on Linux:
// - its nice, which a backend then keeps;
// - its autogroup: with autogroup scheduling (kernel.sched_autogroup_enabled, on by default
//   outside a cgroup of one's own) every session is a group that weighs as much as any other,
//   whatever its processes' nice. PostgreSQL's backends each lead a session of their own (they call
//   setsid), so each one weighs as much as all of the gateway's processes together: its
//   autogroup's nice is lowered too.
// Raising a nice needs no privilege over one's own processes (or as root); a process that is gone
// or not ours is left as it is.
import { readFileSync, writeFileSync } from "node:fs";
import { setPriority } from "node:os";

/** The session of a process (the 4th field after the command's parenthesis in /proc/<pid>/stat). */
function sessionOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
  } catch {
    return null;
  }
}

/** Sets a local process's nice, and its autogroup's when it leads its own session (never another's: ours would be lowered with it). */
export function lowerProcess(pid: number, nice: number): void {
  if (nice <= 0) return;
  try {
    setPriority(pid, nice);
  } catch {
    return;
  }
  if (process.platform !== "linux" || sessionOf(pid) !== pid) return;
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
  } catch {
    // a kernel without autogroups
  }
}
