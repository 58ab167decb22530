// `npm run bench:alloc`: where the request path allocates. Boots the instant mock and our gateway
// (as bench:path does), warms one row up, then opens the inspector of one serving process
// (SIGUSR1) and samples every allocation (V8's sampling heap profiler, objects collected by
// minor and major GCs included) while the row runs again. Prints the functions that allocated
// the most bytes (self), and writes the profile (.heapprofile, for Chrome's DevTools).
//
//   npm run bench:alloc
//   BENCH_ALLOC_ROW=hit BENCH_SECONDS=6 npm run bench:alloc
import { CONNECTIONS, WARMUP_SECONDS } from "./lib/bench-env"; // first: sets the env
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCannon } from "./lib/load";
import { startOurs, waitUntilRoutable } from "./lib/ours";
import { startMock } from "./lib/servers";
import { stopChild } from "../scripts/lib/processes";
import { BODIES } from "./lib/path-rows";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROW = process.env.BENCH_ALLOC_ROW ?? "plain";
const INTERVAL = Number(process.env.BENCH_ALLOC_INTERVAL ?? 4096);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

type Frame = { functionName: string; url: string; lineNumber: number };
type Node = { callFrame: Frame; selfSize: number; children: Node[] };

/** A Chrome DevTools Protocol session on one process's inspector. */
async function inspect(pid: number): Promise<{ send: (method: string, params?: object) => Promise<any>; close: () => void }> {
  process.kill(pid, "SIGUSR1");
  let target: { webSocketDebuggerUrl: string } | undefined;
  for (let i = 0; i < 50 && !target; i++) {
    await new Promise((r) => setTimeout(r, 100));
    target = await fetch("http://127.0.0.1:9229/json/list").then(async (r) => ((await r.json()) as { webSocketDebuggerUrl: string }[])[0], () => undefined);
  }
  if (!target) throw new Error(`process ${pid}'s inspector did not open`);
  const ws = new WebSocket(target.webSocketDebuggerUrl); // Node 20: --experimental-websocket (package.json's script)
  await new Promise((ok, fail) => {
    ws.onopen = ok;
    ws.onerror = fail;
  });
  let id = 0;
  const waiting = new Map<number, (msg: any) => void>();
  ws.onmessage = (event: MessageEvent) => {
    const msg = JSON.parse(String(event.data));
    waiting.get(msg.id)?.(msg);
    waiting.delete(msg.id);
  };
  const send = (method: string, params: object = {}) =>
    new Promise<any>((ok, fail) => {
      const n = ++id;
      waiting.set(n, (msg) => (msg.error ? fail(new Error(msg.error.message)) : ok(msg.result)));
      ws.send(JSON.stringify({ id: n, method, params }));
    });
  return { send, close: () => ws.close() };
}

function selfBytes(root: Node): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (n: Node) => {
    const f = n.callFrame;
    const where = f.url ? ` ${f.url.replace(/^file:\/\//, "").split("/").slice(-2).join("/")}:${f.lineNumber + 1}` : "";
    const key = `${f.functionName || "(anonymous)"}${where}`;
    if (n.selfSize) out.set(key, (out.get(key) ?? 0) + n.selfSize);
    n.children.forEach(walk);
  };
  walk(root);
  return out;
}

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755);
const mock = await startMock();
const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
try {
  const rows = ["plain", "stream", "hit", "miss"]; // the others need bench:path's set-up (routes, a capturing workspace)
  const spec = rows.includes(ROW) ? BODIES[ROW] : undefined;
  if (!spec) throw new Error(`unknown row ${ROW}: one of ${rows.join(", ")}`);
  const url = `${ours.stack.baseUrl}/v1/chat/completions`;
  const auth = { "content-type": "application/json", authorization: `Bearer ${ours.apiKey}` };
  await waitUntilRoutable(url, auth, BODIES.plain!.body);
  const load = { url, headers: { ...auth, ...spec.headers }, body: spec.body, unique: spec.unique, connections: CONNECTIONS };
  await runCannon({ ...load, seconds: WARMUP_SECONDS }, {}, 0);
  const [pid] = ours.gatewayPids();
  const session = await inspect(pid!);
  await session.send("HeapProfiler.enable");
  await session.send("HeapProfiler.startSampling", { samplingInterval: INTERVAL, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  const r = await runCannon({ ...load, seconds: SECONDS }, {}, 0);
  const { profile } = (await session.send("HeapProfiler.stopSampling")) as { profile: { head: Node } };
  session.close();
  const file = path.join(tmpdir(), `gateway-alloc-${ROW}-${Date.now()}.heapprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const bytes = selfBytes(profile.head);
  const total = [...bytes.values()].reduce((a, b) => a + b, 0);
  // Both serving processes share the load about evenly: this one answered about half the calls.
  const calls = r.requests / ours.gatewayPids().length;
  console.log(`${ROW}: ${Math.round(r.rps)} req/s; process ${pid} allocated about ${Math.round(total / calls)} bytes per call (sampled, ${calls.toFixed(0)} calls)`);
  console.log(`profile: ${file}\n`);
  for (const [k, v] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.BENCH_TOP ?? 40)))
    console.log(`${String(Math.round(v / calls)).padStart(7)} B/call ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
} finally {
  await ours.stack.stop();
  await stopChild(mock.child);
  rmSync(scratch, { recursive: true, force: true });
}
