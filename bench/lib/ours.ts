// Our gateway, booted the way production boots it (startStack: embedded PostgreSQL, migrations,
// the gateway's own server processes) on a temp data dir, without the built-in node: the mock
// upstream is registered as its only node, and a workspace with a key and large credits calls it.
// Must be imported after bench/lib/bench-env.ts has set the environment.
import { readFileSync } from "node:fs";
import path from "node:path";
import { ensureBuilt } from "../../scripts/lib/build";
import { startStack, type Stack } from "../../scripts/lib/stack";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { setCaptureSettings } from "../../server/request-log/capture/capture-settings";
import { freePort } from "../../server/infra/net/free-port";
import { checkAllNodes } from "../../server/routing/nodes/health-check";
import { registerNode } from "../../server/routing/nodes/register-node";
import { descendantsNamed, processTree } from "./proc";

export type Ours = {
  stack: Stack;
  apiKey: string;
  workspaceId: string;
  /** The gateway's processes now: the stack's children and all their descendants. */
  gatewayPids: () => number[];
  /** The embedded PostgreSQL's processes (the postmaster and its backends). */
  postgresPids: () => number[];
};

const DIST_DIR = ".next-bench";

export async function startOurs(opts: { dataDir: string; mockV1: string; profileDir?: string; log: (line: string) => void }): Promise<Ours> {
  await ensureBuilt(DIST_DIR, opts.log);
  // Built first, so profiling reaches only the gateway's processes, not `next build`.
  const saved = process.env.GATEWAY_NODE_ARGS;
  if (opts.profileDir) process.env.GATEWAY_NODE_ARGS = `${saved ?? ""} --cpu-prof --cpu-prof-dir=${opts.profileDir}`.trim();
  let stack: Stack;
  try {
    const stdio = process.env.BENCH_GATEWAY_LOGS === "1" ? "inherit" : "ignore";
    stack = await startStack({ dataDir: opts.dataDir, port: await freePort(), host: "127.0.0.1", distDir: DIST_DIR, role: "bench", stdio, log: opts.log });
  } finally {
    if (saved === undefined) delete process.env.GATEWAY_NODE_ARGS;
    else process.env.GATEWAY_NODE_ARGS = saved;
  }
  try {
    await registerNode({ name: "mock", url: opts.mockV1, apiKey: "mock-key", city: "Frankfurt", country: "DE" });
    await checkAllNodes();
    const { apiKey, workspace } = await createWorkspace({ name: "bench", credits: "1000000", withKey: true });
    const runtime = JSON.parse(readFileSync(path.join(opts.dataDir, "runtime.json"), "utf8")) as { children?: { pid: number }[] };
    const roots = (runtime.children ?? []).map((c) => c.pid);
    return {
      stack,
      apiKey: apiKey!.secret,
      workspaceId: workspace.id,
      gatewayPids: () => processTree(roots),
      postgresPids: () => descendantsNamed(process.pid, "postgres"),
    };
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

/** Waits until a call through the gateway succeeds (the node registry learns of the mock by NOTIFY). */
export async function waitUntilRoutable(url: string, headers: Record<string, string>, body: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = "";
  while (Date.now() < deadline) {
    const res = await fetch(url, { method: "POST", headers, body }).catch((err: Error) => err);
    if (!(res instanceof Error) && res.ok) return void (await res.text());
    last = res instanceof Error ? res.message : `HTTP ${res.status} ${await res.text()}`;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the gateway never served the mock's model: ${last}`);
}

/** A workspace of its own whose calls keep their bodies (32 KiB each, one redaction pattern): its API key. */
export async function capturingWorkspaceKey(): Promise<string> {
  const captured = await createWorkspace({ name: "captured", credits: "1000000", withKey: true });
  await setCaptureSettings(captured.workspace.id, { enabled: true, redact_patterns: ["acct-[0-9]{6}"] });
  return captured.apiKey!.secret;
}
