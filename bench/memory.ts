// `npm run bench:memory`: our gateway's RSS, process by process, after boot and after
// BENCH_RSS_REQUESTS (100,000) chat calls at BENCH_CONNECTIONS (64), against the instant mock
// upstream: the memory row of `npm run bench` alone, in about a minute.
import { CONNECTIONS, RSS_REQUESTS } from "./lib/bench-env"; // first: sets the env
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCannon } from "./lib/load";
import { startOurs, waitUntilRoutable } from "./lib/ours";
import { commandName, pssMb, rssMb, rssParts } from "./lib/proc";
import { startMock } from "./lib/servers";
import { stopChild } from "../scripts/lib/processes";
import { MOCK_MODEL } from "./mock-upstream";

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const body = JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "user", content: "Say something short about latency." }], max_tokens: 16 });

const mock = await startMock();
const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
const anonFile = (pid: number) => {
  const { anon, file } = rssParts(pid);
  return `${Math.round(anon)} own + ${Math.round(file)} files`;
};
const report = (label: string) => {
  const pids = ours.gatewayPids();
  const each = rssMb(pids);
  const total = each.reduce((a, b) => a + b, 0);
  const pss = pssMb(pids).reduce((a, b) => a + b, 0);
  log(`${label}: RSS ${Math.round(total)} MB, PSS ${Math.round(pss)} MB (RSS: ${pids.map((pid, i) => `${commandName(pid)}[${pid}] ${Math.round(each[i]!)} = ${anonFile(pid)}`).join(", ")})`);
  return total;
};
try {
  const url = `${ours.stack.baseUrl}/v1/chat/completions`;
  const headers = { "content-type": "application/json", authorization: `Bearer ${ours.apiKey}` };
  await waitUntilRoutable(url, headers, body);
  const boot = report("after boot");
  const r = await runCannon({ url, headers, body, connections: CONNECTIONS, amount: RSS_REQUESTS }, { target: ours.gatewayPids }, 0);
  const cpuPerRequest = (r.cpuMs.target ?? 0) / r.requests;
  const after = report(`after ${r.requests} requests (${Math.round(r.rps)} req/s, ${cpuPerRequest.toFixed(3)} ms CPU/request, ${r.errors} errors)`);
  process.stdout.write(`${JSON.stringify({ requests: r.requests, errors: r.errors, rps: Math.round(r.rps), cpuPerRequest, bootMb: Math.round(boot), afterMb: Math.round(after) })}\n`);
} finally {
  await ours.stack.stop();
  await stopChild(mock.child);
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);
