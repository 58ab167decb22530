// On a shared machine, other people's builds and tests take cores the bench measures on. Before
// each row the bench waits (up to BENCH_QUIET_WAIT seconds, default 30; 0: never) until
// processes outside it use less than BENCH_QUIET_SHARE (default 0.1) of the machine's CPU.
import { cpuSince, cpuSnapshot, machineCpu, processTree } from "./proc";

const MAX_WAIT_S = Number(process.env.BENCH_QUIET_WAIT ?? 30);
export const QUIET_SHARE = Number(process.env.BENCH_QUIET_SHARE ?? 0.1);

/** Share of all cores used by processes outside this bench over the next `ms`. */
async function foreignShare(ms: number): Promise<number> {
  const m0 = machineCpu();
  const b0 = cpuSnapshot(processTree([process.pid]));
  await new Promise((r) => setTimeout(r, ms));
  const m1 = machineCpu();
  const bench = cpuSince(b0, processTree([process.pid]));
  const span = m1.totalMs - m0.totalMs;
  return span > 0 ? Math.max(0, m1.busyMs - m0.busyMs - bench) / span : 0;
}

export async function waitForQuiet(log: (line: string) => void): Promise<void> {
  if (MAX_WAIT_S <= 0) return;
  const deadline = Date.now() + MAX_WAIT_S * 1000;
  let share = await foreignShare(1000);
  if (share < QUIET_SHARE) return;
  log(`other processes use ${Math.round(share * 100)}% of the CPU: waiting up to ${MAX_WAIT_S} s for quiet`);
  while (Date.now() < deadline) {
    share = await foreignShare(1000);
    if (share < QUIET_SHARE) return log("quiet: going on");
  }
  log(`still ${Math.round(share * 100)}% used by other processes: measuring anyway (see the "other load" column)`);
}
