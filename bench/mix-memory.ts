// `npm run bench:mix-memory`: an instance's memory, process by process, after a broad mix of
// every family of routes, then after BENCH_RSS_REQUESTS (40,000) light chat calls more. Boots the
// gateway as production does (bench/lib/ours.ts) with the built-in node and the instant mock
// upstream (in OpenAI's and Anthropic's formats) as nodes; reports each gateway process's RSS
// (its own pages and mapped files) and PSS after boot, after each phase of the mix (chat and
// streams, embeddings, responses, files, a batch run to completion, conversations, the response
// cache, capture, Anthropic's Messages, images, audio, moderations and a video, the dashboard's
// sign-in and pages), once the batch process ended, and after the light calls; the built-in node
// and PostgreSQL apart. Exits 1 when the gateway's processes hold more than BENCH_MIX_BUDGET_MB
// (400) of RSS at any of the last three, or when a kind of call of the mix never succeeded.
//
//   npm run bench:mix-memory
//   BENCH_HEAP=1 npm run bench:mix-memory       # and a V8 heap snapshot of each process, by kind and by script
//   BENCH_HEAP=1 BENCH_HEAP_AT=mix npm run bench:mix-memory   # the serving processes' snapshots right after the mix
//   BENCH_MIX_ROUNDS=50 BENCH_RSS_REQUESTS=10000 npm run bench:mix-memory
//   BENCH_MIX_SKIP="Anthropic count_tokens,dashboard" npm run bench:mix-memory   # without those phases
import { CONNECTIONS } from "./lib/bench-env"; // first: sets the env
import "./lib/with-local-node";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCannon } from "./lib/load";
import { heapMarkdown, snapshotArgs, summarizeHeap, takeSnapshots } from "./lib/mix-heap";
import { measure, nameOf, rollup, stageLine, stagesTable, sum, type Stage } from "./lib/mix-procs";
import { mixer } from "./lib/mix-traffic";
import { capturingWorkspaceKey, startOurs, waitUntilRoutable } from "./lib/ours";
import { startMock } from "./lib/servers";
import { stopChild } from "../scripts/lib/processes";
import { db } from "../server/infra/db/client";
import { signUp } from "../server/identity/users/sign-up";
import { createWorkspace } from "../server/onboarding/create-workspace";
import { setCacheSettings } from "../server/response-cache/settings";
import { setModelPrice } from "../server/routing/catalog/set-price";
import { addNode } from "../server/routing/nodes/nodes";
import { MOCK_ANTHROPIC_MODEL, MOCK_ANTHROPIC_PREFIX, MOCK_EMBEDDING_MODEL, MOCK_MODEL } from "./mock-upstream";

const LIGHT = Number(process.env.BENCH_RSS_REQUESTS ?? 40_000);
const ROUNDS = Number(process.env.BENCH_MIX_ROUNDS ?? 200);
const BATCH_LINES = Number(process.env.BENCH_BATCH_LINES ?? 500);
const BUDGET = Number(process.env.BENCH_MIX_BUDGET_MB ?? 400);
/** Phases left out, by the start of their names, comma-separated (e.g. "Anthropic count_tokens,dashboard"): what the rest holds without them. */
const SKIP = (process.env.BENCH_MIX_SKIP ?? "").split(",").map((x) => x.trim()).filter(Boolean);
const HEAP = process.env.BENCH_HEAP === "1";
/** When the serving processes write theirs: "end" (after the light calls) or "mix" (right after the mix; the later figures then carry the snapshots' own memory). */
const HEAP_AT = process.env.BENCH_HEAP_AT === "mix" ? "mix" : "end";
const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const snapshots = HEAP ? mkdtempSync(path.join(tmpdir(), "gateway-heap-")) : "";
if (HEAP) process.env.GATEWAY_NODE_ARGS = `${process.env.GATEWAY_NODE_ARGS ?? ""} ${snapshotArgs(snapshots)}`.trim();
const body = JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "user", content: "Say something short about latency." }], max_tokens: 16 });

const mock = await startMock();
const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
const base = ours.stack.baseUrl;
const stages: Stage[] = [];
const phaseStages: Stage[] = [];
const out: string[] = [];
const heaps: string[] = [];
let exitCode = 0;
const stage = (label: string, keep: Stage[] = stages) => {
  const s = measure(label, ours.gatewayPids(), ours.postgresPids());
  keep.push(s);
  log(stageLine(s));
  return s;
};
/** Snapshots of these gateway processes (never the built-in node: it is not started to write them), summed up. */
async function snapshot(label: string, pids: number[]): Promise<void> {
  // Read first: writing a snapshot takes a lot of memory, which the process keeps.
  const rollups = new Map(pids.map((pid) => [pid, rollup(pid)]));
  const files = await takeSnapshots(snapshots, pids);
  for (const pid of pids) {
    const file = files.get(pid);
    const r = rollups.get(pid)!;
    const title = `#### ${nameOf(pid).name} [${pid}] ${label}: RSS ${Math.round(r.Rss ?? 0)} MB (anonymous ${Math.round(r.Anonymous ?? 0)}, private dirty ${Math.round(r.Private_Dirty ?? 0)}, shared clean ${Math.round(r.Shared_Clean ?? 0)}), PSS ${Math.round(r.Pss ?? 0)} (anon ${Math.round(r.Pss_Anon ?? 0)}, file ${Math.round(r.Pss_File ?? 0)})`;
    heaps.push(file ? heapMarkdown(title, summarizeHeap(file)) + `snapshot: ${file}\n` : `${title}\n\n(no snapshot)\n`);
  }
}
const gatewayServers = () => ours.gatewayPids().filter((pid) => nameOf(pid).part === "gateway" && !nameOf(pid).name.includes("(child)"));

try {
  const url = `${base}/v1/chat/completions`;
  const headers = { "content-type": "application/json", authorization: `Bearer ${ours.apiKey}` };
  // The mock in Anthropic's format too (pass-through Messages), priced (its list gives no prices).
  await addNode({ name: "mock-anthropic", url: `${mock.baseUrl}${MOCK_ANTHROPIC_PREFIX}`, wire: "anthropic", apiKey: "mock-key", city: "Frankfurt", country: "DE" });
  await setModelPrice({ model: MOCK_ANTHROPIC_MODEL, input: "0.3", output: "1.7" });
  const cache = await createWorkspace({ name: "mix-cache", credits: "1000000", withKey: true });
  await setCacheSettings(cache.workspace.id, { default_on: true, ttl_seconds: 3600 });
  const captured = await capturingWorkspaceKey();
  const password = "correct horse battery staple";
  const user = await signUp({ name: "Mix Owner", email: "mix-owner@example.test", password });
  await db.membership.create({ data: { workspaceId: ours.workspaceId, userId: user.id, role: "owner" } });

  await waitUntilRoutable(url, headers, body);
  await waitUntilRoutable(url, headers, JSON.stringify({ model: "local-chat-sim", messages: [{ role: "user", content: "hi" }], max_tokens: 4 }));
  await waitUntilRoutable(`${base}/v1/messages`, { "content-type": "application/json", "x-api-key": ours.apiKey, "anthropic-version": "2023-06-01" }, JSON.stringify({ model: MOCK_ANTHROPIC_MODEL, max_tokens: 4, messages: [{ role: "user", content: "hi" }] }));
  const boot = stage("after boot");
  phaseStages.push(boot);

  const { tally, phases } = mixer({
    baseUrl: base,
    keys: { live: ours.apiKey, cached: cache.apiKey!.secret, captured },
    models: { chat: MOCK_MODEL, embed: MOCK_EMBEDDING_MODEL, anthropic: MOCK_ANTHROPIC_MODEL, local: "local-chat-sim", localEmbed: "local-embed-ngram" },
    dashboard: { email: user.email, password, workspaceId: ours.workspaceId },
    rounds: ROUNDS,
    batchLines: BATCH_LINES,
    concurrency: 8,
    log,
  });
  const mixStart = Date.now();
  for (const [name, run] of phases.filter(([name]) => !SKIP.some((x) => name.startsWith(x)))) {
    const t0 = Date.now();
    await run();
    stage(`+ ${name} (${((Date.now() - t0) / 1000).toFixed(0)} s)`, phaseStages);
  }
  const calls = [...tally.values()].reduce((a, t) => a + t.ok + t.failed, 0);
  const mixed = stage(`after the mix (${calls} calls, ${Math.round((Date.now() - mixStart) / 1000)} s)`);
  const kinds = [...tally].map(([k, t]) => `| ${k} | ${t.ok} | ${t.failed} | ${t.lastError?.replace(/\|/g, "\\|").replace(/\n/g, " ") ?? ""} |`);
  const never = [...tally].filter(([, t]) => t.ok === 0).map(([k]) => k);
  if (never.length) {
    log(`never succeeded: ${never.join(", ")}`);
    exitCode = 1;
  }
  // The batch process, while it is still up; then it is waited for to end (BATCH_PROCESS_IDLE_SECONDS idle).
  const batchPids = gatewayServers().filter((pid) => nameOf(pid).name.includes("batches"));
  if (HEAP && HEAP_AT === "mix") await snapshot("after the mix", gatewayServers());
  else if (HEAP && batchPids.length) await snapshot("after the mix", batchPids);
  const waitFrom = Date.now();
  while (gatewayServers().some((pid) => batchPids.includes(pid)) && Date.now() - waitFrom < 180_000) await new Promise((res) => setTimeout(res, 1000));
  const ended = stage(`after the batch process ended (${Math.round((Date.now() - waitFrom) / 1000)} s later)`);

  const r = await runCannon({ url, headers, body, connections: CONNECTIONS, amount: LIGHT }, { target: ours.gatewayPids }, 0);
  const light = stage(`after ${r.requests} light calls more (${Math.round(r.rps)} req/s, ${r.errors} errors)`);
  if (r.errors) exitCode = 1;
  const roll = gatewayServers().map((pid) => ({ pid, name: nameOf(pid).name, r: rollup(pid) }));
  if (HEAP && HEAP_AT === "end") await snapshot(`after ${r.requests} light calls more`, gatewayServers());

  const gw = (s: Stage) => Math.round(sum(s.procs, "gateway", (p) => p.rss));
  const gwPss = (s: Stage) => Math.round(sum(s.procs, "gateway", (p) => p.pss));
  const peak = phaseStages.reduce((a, s) => (gw(s) > gw(a) ? s : a));
  const over = Math.max(gw(mixed), gw(ended), gw(light)) > BUDGET;
  if (over) exitCode = 1;
  out.push(
    `### An instance's memory under a broad mix (${new Date().toISOString()}, ${ROUNDS} rounds, a batch of ${BATCH_LINES} lines, then ${r.requests} light calls at ${CONNECTIONS} connections${SKIP.length ? `; without the phases ${SKIP.join(", ")}` : ""})`,
    "",
    "Each gateway process's RSS, with its own (anonymous) pages in brackets; MB are MiB.",
    "",
    stagesTable(stages),
    "",
    "#### After each phase of the mix",
    "",
    stagesTable(phaseStages),
    "",
    "#### smaps_rollup of each gateway process at the end (MB)",
    "",
    "| process | Rss | Anonymous | Private_Dirty | Shared_Clean | Pss | Pss_Anon | Pss_File |",
    "|---|---|---|---|---|---|---|---|",
    ...roll.map((x) => `| ${x.name} [${x.pid}] | ${["Rss", "Anonymous", "Private_Dirty", "Shared_Clean", "Pss", "Pss_Anon", "Pss_File"].map((k) => x.r[k]).map((v) => Math.round(v ?? 0)).join(" | ")} |`),
    "",
    "#### The mix's calls",
    "",
    "| kind | ok | failed | last error |",
    "|---|---|---|---|",
    ...kinds,
    "",
    `**Against the budget (${BUDGET} MB of RSS over the gateway's processes after the mix, once the batch process ended, and after the light calls):** ${over ? "**not met**" : "met"} (${gw(mixed)}, ${gw(ended)} and ${gw(light)} MB; the most during the mix: ${gw(peak)} MB, ${peak.label}).`,
    "",
    ...(HEAP ? ["### Heaps", "", ...heaps] : []),
  );
  process.stdout.write(`${out.join("\n")}\n`);
  process.stdout.write(
    `${JSON.stringify({ budgetMb: BUDGET, bootMb: gw(boot), mixMb: gw(mixed), peakMixMb: gw(peak), batchEndedMb: gw(ended), lightMb: gw(light), bootPssMb: gwPss(boot), mixPssMb: gwPss(mixed), lightPssMb: gwPss(light), processesAfterMix: mixed.procs.filter((p) => p.part === "gateway").length, mixCalls: calls, never, lightRequests: r.requests, lightErrors: r.errors, met: !over })}\n`,
  );
} catch (err) {
  log(`failed: ${(err as Error).stack ?? err}`);
  exitCode = 1;
} finally {
  await ours.stack.stop();
  await stopChild(mock.child);
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(exitCode);
