// Child processes of `npm start` and of the test harness, and waiting for them to be ready.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { projectRoot } from "../../server/infra/paths";
import { serverBundle } from "./build";

export type Child = { name: string; proc: ChildProcess; exited: Promise<number | null> };

function track(name: string, proc: ChildProcess): Child {
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return { name, proc, exited };
}

export async function waitForHttp(url: string, child: Child, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${child.name} exited before it was ready`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.name} was not ready at ${url} within ${timeoutMs} ms`);
}

type Stdio = "inherit" | "ignore" | "pipe";

/** `dataDir`: where the node keeps its fine-tuning files, jobs and models across restarts. */
export function spawnLocalNode(port: number, apiKey: string, dataDir: string, stdio: Stdio = "inherit"): Child {
  // `--import tsx` keeps it one process, so signals reach the node itself.
  const proc = spawn(process.execPath, ["--import", "tsx", path.join(projectRoot, "local-node/main.ts")], {
    cwd: projectRoot,
    stdio: ["ignore", stdio, stdio],
    env: { ...process.env, LOCAL_NODE_PORT: String(port), LOCAL_NODE_API_KEY: apiKey, LOCAL_NODE_DATA_DIR: dataDir },
  });
  return track("local node", proc);
}

/**
 * V8 settings of the gateway's processes. A young generation of at most 2 × 4 MB (Node's default
 * is 2 × 16) and an old generation let to grow 30% over what survived the last full collection
 * (V8 otherwise lets it double or more first): the data plane keeps ~30 MB alive, and with V8's
 * defaults a process under load carried 60–80 MB of garbage on top. WebAssembly (only Prisma's
 * query compiler, whose plans are cached) stays on the baseline compiler, ~15 MB less code.
 * Measured with `npm run bench:memory` and `npm run bench` (docs/BENCHMARKS.md).
 */
export const GATEWAY_V8_FLAGS = ["--max-semi-space-size=4", "--heap-growing-percent=30", "--liftoff-only"];

/**
 * glibc's malloc, for the gateway's processes (each can be overridden by setting it):
 * - one arena: by default it keeps up to 8 per core for the threads that allocate (libuv's pool,
 *   V8's helpers), each holding freed memory of its own (2 took 280 against 295 MB after 100,000
 *   calls in one `npm run bench:memory` pair; 1 a few MB less again, below);
 * - a fixed 128 KiB threshold for mmap and for trimming: by default it rises with each large block
 *   freed (up to 32 MiB), after which such blocks are carved from the heap and their pages kept.
 * One arena and the fixed thresholds together: 244, 249, 245 MB after 100,000 calls against 255,
 * 247, 252 with 2 arenas and the defaults (alternated), at the same CPU per request.
 */
const GATEWAY_MALLOC_ENV: Record<string, string> = { MALLOC_ARENA_MAX: "1", MALLOC_MMAP_THRESHOLD_: "131072", MALLOC_TRIM_THRESHOLD_: "131072" };

export function spawnGateway(opts: { port: number; host: string; distDir: string; env: Record<string, string> }, stdio: Stdio = "inherit"): Child {
  // GATEWAY_NODE_ARGS: extra Node.js flags for the gateway's processes (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`,
  // which NODE_OPTIONS does not accept); cluster workers inherit them.
  // Given after the defaults, so they win.
  const nodeArgs = [...GATEWAY_V8_FLAGS, ...(process.env.GATEWAY_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [])];
  // The server bundled by ensureBuilt (scripts/lib/build.ts) with the build in distDir.
  const proc = spawn(process.execPath, [...nodeArgs, serverBundle(opts.distDir)], {
    cwd: projectRoot,
    stdio: ["ignore", stdio, stdio],
    env: { ...GATEWAY_MALLOC_ENV, ...process.env, ...opts.env, PORT: String(opts.port), HOST: opts.host, NEXT_DIST_DIR: opts.distDir, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
  });
  return track("gateway", proc);
}

export type Supervised = {
  /** The child running now (or the last one, while a restart waits out its backoff). */
  current: () => Child;
  /** No more restarts (the stack is stopping; a child that dies now stays down). */
  stopRestarting: () => void;
  /** Stops restarting, then stops the child running (stopChild). */
  stop: (graceMs?: number) => Promise<void>;
};

export type SuperviseOptions = {
  /** Told of each exit, with the wait before the restart. */
  onExit?: (child: Child, how: string, restartInMs: number) => void;
  /** Runs after each restart (e.g. waits until the child is ready); a failure is logged, not fatal. */
  onRestart?: (child: Child) => Promise<void>;
  minDelayMs?: number;
  maxDelayMs?: number;
  /** A child that ran this long before it exited is restarted after minDelayMs again. */
  stableMs?: number;
};

/**
 * Keeps a child running: when it exits on its own, a new one is started after a backoff that
 * doubles from minDelayMs (0.5 s) to maxDelayMs (30 s), so a child that cannot start does not
 * spin, and goes back to minDelayMs once a child stayed up for stableMs.
 */
export function supervise(start: () => Child, opts: SuperviseOptions = {}): Supervised {
  const { minDelayMs = 500, maxDelayMs = 30_000, stableMs = 30_000 } = opts;
  let child = start();
  let startedAt = Date.now();
  let delay = minDelayMs;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const watch = (c: Child) => {
    c.proc.once("exit", (code, signal) => {
      if (stopped) return;
      if (Date.now() - startedAt >= stableMs) delay = minDelayMs;
      const wait = delay;
      delay = Math.min(delay * 2, maxDelayMs);
      opts.onExit?.(c, signal ?? `code ${code}`, wait);
      timer = setTimeout(() => {
        if (stopped) return;
        child = start();
        startedAt = Date.now();
        watch(child);
        opts.onRestart?.(child).catch((err: unknown) => console.error(`${child.name}: ${(err as Error).message}`));
      }, wait);
    });
  };
  watch(child);
  const stopRestarting = () => {
    stopped = true;
    clearTimeout(timer);
  };
  return {
    current: () => child,
    stopRestarting,
    stop: async (graceMs) => {
      stopRestarting();
      await stopChild(child, graceMs);
    },
  };
}

/** SIGTERM, then SIGKILL if the child has not exited after graceMs. */
export async function stopChild(child: Child, graceMs = 5000): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill("SIGTERM");
  const timer = setTimeout(() => child.proc.kill("SIGKILL"), graceMs);
  await child.exited;
  clearTimeout(timer);
}
