// `npm run bench:memory`: our gateway's RSS, process by process, after boot and after each of
// BENCH_RSS_ROUNDS (2) rounds of BENCH_RSS_REQUESTS (100,000) chat calls at BENCH_CONNECTIONS
// (64), against the instant mock upstream: the memory row of `npm run bench` alone, and whether
// a second round grows it (a process that keeps growing holds something it should not).
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
  const rounds = Math.max(1, Number(process.env.BENCH_RSS_ROUNDS ?? 2));
  const after: number[] = [];
  let last = { requests: 0, errors: 0, rps: 0, cpuPerRequest: 0 };
  for (let round = 1; round <= rounds; round++) {
    const r = await runCannon({ url, headers, body, connections: CONNECTIONS, amount: RSS_REQUESTS }, { target: ours.gatewayPids }, 0);
    last = { requests: r.requests, errors: r.errors, rps: Math.round(r.rps), cpuPerRequest: (r.cpuMs.target ?? 0) / r.requests };
    after.push(report(`after round ${round}: ${r.requests} requests (${last.rps} req/s, ${last.cpuPerRequest.toFixed(3)} ms CPU/request, ${r.errors} errors)`));
  }
  const growth = after.length > 1 ? after[after.length - 1]! - after[0]! : 0;
  if (after.length > 1) log(`growth from the first round's end to the last's: ${growth >= 0 ? "+" : ""}${Math.round(growth)} MB`);
  process.stdout.write(`${JSON.stringify({ ...last, bootMb: Math.round(boot), afterMb: Math.round(after[0]!), afterRoundsMb: after.map(Math.round), growthMb: Math.round(growth) })}\n`);
} finally {
  await ours.stack.stop();
  await stopChild(mock.child);
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);
