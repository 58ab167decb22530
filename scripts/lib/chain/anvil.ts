// A local EVM dev chain: Foundry's anvil, from the npm package @foundry-rs/anvil (its binary lives
// in the platform package, e.g. @foundry-rs/anvil-linux-amd64). Automine is on (every transaction
// is mined at once), the accounts are anvil's defaults (the "test test … junk" mnemonic, 10000 ETH
// each). Callers must call stop(); as a safety net the child is also killed when this process
// exits normally (not when it is SIGKILLed).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { freePort } from "../../../server/infra/net/free-port";

export type AnvilOptions = {
  /** Port on 127.0.0.1; a free one by default. */
  port?: number;
  /** Default 31337. */
  chainId?: number;
  /** "ignore" (default) keeps anvil quiet (its stderr is kept for error messages); "inherit" shows its output. */
  stdio?: "inherit" | "ignore";
  /** Keep the chain's state in this file across runs (anvil --state): loaded at start if it
   *  exists, written on stop (SIGTERM) and every 10 s meanwhile. In memory only by default. */
  statePath?: string;
};

export type Anvil = {
  rpcUrl: string;
  chainId: number;
  pid: number;
  /** SIGTERM, then waits for the process to exit (SIGKILL after 5 s). */
  stop(): Promise<void>;
};

const READY_TIMEOUT_MS = 20_000;

/** Path of the anvil binary shipped by npm for this platform. */
export function anvilBinaryPath(): string {
  const require = createRequire(import.meta.url);
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const candidates = [...new Set(["@foundry-rs/anvil-linux-amd64", `@foundry-rs/anvil-${process.platform}-${arch}`])];
  const exe = process.platform === "win32" ? "anvil.exe" : "anvil";
  const tried: string[] = [];
  for (const pkg of candidates) {
    // The linux-amd64 package is only of use on that platform.
    if (pkg === "@foundry-rs/anvil-linux-amd64" && !(process.platform === "linux" && process.arch === "x64")) continue;
    tried.push(pkg);
    let dir: string;
    try {
      dir = dirname(require.resolve(`${pkg}/package.json`));
    } catch {
      continue;
    }
    const bin = join(dir, "bin", exe);
    if (existsSync(bin)) return bin;
  }
  throw new Error(
    `anvil binary not found for ${process.platform}/${process.arch} (looked for ${tried.join(", ")}). ` +
      "It comes with the npm package @foundry-rs/anvil (an optional dependency per platform): run `npm install`.",
  );
}

/** Starts anvil on 127.0.0.1 and resolves once it answers eth_chainId. */
export async function startAnvil(opts: AnvilOptions = {}): Promise<Anvil> {
  const bin = anvilBinaryPath();
  const chainId = opts.chainId ?? 31337;
  // A port that was free a moment ago may be taken by the time anvil binds it: retry with another.
  const attempts = opts.port === undefined ? 3 : 1;
  let lastError: Error | undefined;
  for (let i = 0; i < attempts; i++) {
    const port = opts.port ?? (await freePort());
    try {
      return await launch(bin, port, chainId, opts.stdio ?? "ignore", opts.statePath);
    } catch (e) {
      lastError = e as Error;
    }
  }
  throw lastError!;
}

async function launch(bin: string, port: number, chainId: number, stdio: "inherit" | "ignore", statePath?: string): Promise<Anvil> {
  const args = ["--host", "127.0.0.1", "--port", String(port), "--chain-id", String(chainId), "--silent"];
  if (statePath) args.push("--state", statePath, "--state-interval", "10");
  const child = spawn(bin, args, { stdio: stdio === "inherit" ? "inherit" : ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });

  // Set from event handlers (an object, so that TypeScript does not narrow them away).
  const state: { exited?: { code: number | null; signal: NodeJS.Signals | null }; spawnError?: Error } = {};
  const exitPromise = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      state.exited = { code, signal };
      resolve();
    });
  });
  child.once("error", (e) => {
    state.spawnError = e;
  });

  // SIGTERM, not SIGKILL: anvil then still writes its state file after this process is gone.
  const killOnExit = () => {
    if (!state.exited) child.kill("SIGTERM");
  };
  process.once("exit", killOnExit);

  const stop = async (): Promise<void> => {
    process.removeListener("exit", killOnExit);
    if (state.exited || state.spawnError || child.pid === undefined) return;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exitPromise;
    clearTimeout(timer);
  };

  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      if (state.spawnError) throw new Error(`could not start anvil (${bin}): ${state.spawnError.message}`);
      if (state.exited) {
        throw new Error(
          `anvil exited before it was ready (code ${state.exited.code}, signal ${state.exited.signal})` + (stderr ? `: ${stderr.trim()}` : ""),
        );
      }
      const answered = await chainIdAt(rpcUrl);
      if (answered !== undefined) {
        if (answered !== chainId) throw new Error(`anvil at ${rpcUrl} answered chain id ${answered}, expected ${chainId}`);
        break;
      }
      if (Date.now() > deadline) throw new Error(`anvil did not answer on ${rpcUrl} within ${READY_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { rpcUrl, chainId, pid: child.pid!, stop };
}

async function chainIdAt(rpcUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(1000),
    });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { result?: string };
    return typeof body.result === "string" ? Number(BigInt(body.result)) : undefined;
  } catch {
    return undefined;
  }
}
