// A process named by pid AND start time, so a pid reused by an unrelated process after a crash
// or a container restart is never mistaken for the one that wrote it down.
import { readFileSync } from "node:fs";

export type ProcessIdentity = { pid: number; startTime: string };

/** The start time of a process as the kernel reports it (clock ticks since boot), or "" if unknown. */
export function startTimeOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start after the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
  } catch {
    return "";
  }
}

export function identify(pid: number): ProcessIdentity {
  return { pid, startTime: startTimeOf(pid) };
}

/** Whether some process has this pid (it may be another than the one meant: see isRunning). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function isRunning(p: ProcessIdentity): boolean {
  if (!pidExists(p.pid)) return false;
  const now = startTimeOf(p.pid);
  return !p.startTime || !now || now === p.startTime;
}

export function parseIdentity(text: string): ProcessIdentity | null {
  const [pid, startTime = ""] = text.trim().split(/\s+/);
  return pid && Number(pid) > 0 ? { pid: Number(pid), startTime } : null;
}

export function formatIdentity(p: ProcessIdentity): string {
  return `${p.pid} ${p.startTime}`;
}
