// `npm run bench:messages`: what Anthropic's Messages API (POST /v1/messages) costs on our gateway
// beside chat completions, at BENCH_RATE (200 req/s), in BENCH_ROUNDS (5) rounds, non-streamed
// (send to last byte) and streamed (send to first body byte). The instant mock upstream is two
// nodes: `mock` (OpenAI's format) and `mock-anthropic` (Anthropic's, under /anthropic/v1, its model
// priced here since an Anthropic model list gives no prices). Rows:
//   chat              /v1/chat/completions on the OpenAI-format node, against the mock's chat call;
//   messages (translated)    /v1/messages on the same node (a chat completion and back), against
//                            the mock's chat call;
//   messages (pass-through)  /v1/messages on the Anthropic-format node, against the mock's own
//                            /anthropic/v1/messages.
// Each target is measured right after its direct call; a round's overhead is the difference, and the
// medians over rounds cancel most of the machine's drift.
//
//   npm run bench:messages
//   BENCH_ROUNDS=3 BENCH_SECONDS=5 npm run bench:messages
// "other load": the share of the machine's CPU that processes outside the bench took during a row
// (for an overhead, the larger of its two rows'); near 0% for a clean row.
import { RATE, SECONDS, WARMUP_SECONDS } from "./lib/bench-env"; // first: sets the env
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runRate, type PidGroups } from "./lib/load";
import { startOurs, waitUntilRoutable } from "./lib/ours";
import { processTree } from "./lib/proc";
import { startMock } from "./lib/servers";
import { stopChild } from "../scripts/lib/processes";
import { addNode } from "../server/routing/nodes/nodes";
import { setModelPrice } from "../server/routing/catalog/set-price";
import { MOCK_ANTHROPIC_MODEL, MOCK_ANTHROPIC_PREFIX, MOCK_MODEL } from "./mock-upstream";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Streamed Messages calls checked in full (every event, in order) before each round, per target. */
const CHECKED_STREAMS = 10;
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const messages = [{ role: "user", content: "Say something short about latency." }];
const body = (model: string, stream: boolean) => JSON.stringify({ model, max_tokens: 16, messages, ...(stream && { stream: true }) });
const json = { "content-type": "application/json" };
const anthropicHeaders = (key: string) => ({ ...json, "x-api-key": key, "anthropic-version": "2023-06-01" });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Target = { url: string; headers: Record<string, string>; model: string; anthropicEvents: boolean; groups: PidGroups };
/** A measured target and the direct call measured right before it. */
type Row = { name: string; direct: Target; target: Target };

/**
 * The events of a streamed Message, in order, or why it is not one. The load generator checks a
 * stream's end by OpenAI's `data: [DONE]`, which Anthropic's streams do not send: their rows are
 * measured without that check (status 200 only), and their streams are checked here instead.
 */
async function checkMessageStream(t: Target): Promise<string | null> {
  const res = await fetch(t.url, { method: "POST", headers: t.headers, body: body(t.model, true) });
  const text = await res.text();
  if (res.status !== 200) return `HTTP ${res.status} ${text.slice(0, 300)}`;
  const types = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
  const data = [...text.matchAll(/^data: (.*)$/gm)].map((m) => (JSON.parse(m[1]!) as { type: string }).type);
  const order = types.filter((x) => x !== "ping").join(",");
  const expected = /^message_start,content_block_start,(content_block_delta,)+content_block_stop,message_delta,message_stop$/;
  if (types.join(",") !== data.join(",") || !expected.test(`${order}`)) return `unexpected events: ${types.join(",")} ${text.slice(0, 300)}`;
  return null;
}

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-bench-"));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user
const mock = await startMock();
const ours = await startOurs({ dataDir: path.join(scratch, "data"), mockV1: `${mock.baseUrl}/v1`, log });
try {
  const added = await addNode({ name: "mock-anthropic", url: `${mock.baseUrl}${MOCK_ANTHROPIC_PREFIX}`, wire: "anthropic", apiKey: "mock-key", city: "Frankfurt", country: "DE" });
  if (!added.importedModels.includes(MOCK_ANTHROPIC_MODEL)) throw new Error(`the Anthropic-format node's model was not imported: ${JSON.stringify(added)}`);
  await setModelPrice({ model: MOCK_ANTHROPIC_MODEL, input: "0.3", output: "1.7" });

  const mockPids = { target: () => processTree([mock.child.proc.pid!]) };
  const direct = (url: string, headers: Record<string, string>, model: string, anthropicEvents: boolean): Target => ({ url, headers, model, anthropicEvents, groups: mockPids });
  const gateway = (route: string, headers: Record<string, string>, model: string, anthropicEvents: boolean): Target => ({
    url: `${ours.stack.baseUrl}${route}`,
    headers,
    model,
    anthropicEvents,
    groups: { target: ours.gatewayPids },
  });
  const directChat = direct(`${mock.baseUrl}/v1/chat/completions`, { ...json, authorization: "Bearer mock-key" }, MOCK_MODEL, false);
  const directMessages = direct(`${mock.baseUrl}${MOCK_ANTHROPIC_PREFIX}/messages`, anthropicHeaders("mock-key"), MOCK_ANTHROPIC_MODEL, true);
  const rows: Row[] = [
    { name: "chat completions (OpenAI-format node)", direct: directChat, target: gateway("/v1/chat/completions", { ...json, authorization: `Bearer ${ours.apiKey}` }, MOCK_MODEL, false) },
    { name: "messages, translated (OpenAI-format node)", direct: directChat, target: gateway("/v1/messages", anthropicHeaders(ours.apiKey), MOCK_MODEL, true) },
    { name: "messages, pass-through (Anthropic-format node)", direct: directMessages, target: gateway("/v1/messages", anthropicHeaders(ours.apiKey), MOCK_ANTHROPIC_MODEL, true) },
  ];
  for (const r of rows) await waitUntilRoutable(r.target.url, r.target.headers, body(r.target.model, false));

  /** `other`: the share of the CPU that processes outside the bench took during the row(s). */
  const results: Record<string, { p50: number[]; p99: number[]; other: number[] }> = {};
  const note = (name: string, p50: number, p99: number, other: number) => {
    results[name] ??= { p50: [], p99: [], other: [] };
    results[name].p50.push(p50);
    results[name].p99.push(p99);
    results[name].other.push(other);
  };
  const measure = async (t: Target, stream: boolean) => {
    // Anthropic's streams end with message_stop, not [DONE]: measured as streams, checked apart.
    const r = await runRate({ url: t.url, headers: t.headers, body: body(t.model, stream), rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, stream: stream && !t.anthropicEvents }, t.groups);
    if (r.failed) throw new Error(`${t.url}: ${r.failed} calls failed ${JSON.stringify(r.failures)}`);
    return { ...(stream ? r.firstByte : r.total), other: r.foreignBusy };
  };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const t of [directMessages, rows[1]!.target, rows[2]!.target]) {
      for (let i = 0; i < CHECKED_STREAMS; i++) {
        const wrong = await checkMessageStream(t);
        if (wrong) throw new Error(`${t.url} (${t.model}) streamed: ${wrong}`);
      }
    }
    for (const stream of [false, true]) {
      const kind = stream ? "stream first byte" : "non-streamed";
      const line: string[] = [];
      for (const r of rows) {
        const d = await measure(r.direct, stream);
        const m = await measure(r.target, stream);
        note(`${kind}: ${r.name}: direct`, d.p50, d.p99, d.other);
        note(`${kind}: ${r.name}: ours`, m.p50, m.p99, m.other);
        note(`${kind}: ${r.name}: overhead`, m.p50 - d.p50, m.p99 - d.p99, Math.max(d.other, m.other));
        line.push(`${r.name} direct ${d.p50.toFixed(3)} ours ${m.p50.toFixed(3)}`);
      }
      log(`round ${round} ${kind} p50: ${line.join("; ")} ms`);
    }
  }
  process.stdout.write(`\n${ROUNDS} rounds at ${RATE} req/s, ${SECONDS} s per row (ms; medians over rounds, and each round's figure):\n\n`);
  process.stdout.write("| row | p50 | p99 | p50 by round | p99 by round | other load by round |\n|---|---|---|---|---|---|\n");
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(", ");
  const pct = (xs: number[]) => xs.map((x) => `${Math.round(x * 100)}%`).join(", ");
  for (const [name, r] of Object.entries(results)) {
    process.stdout.write(`| ${name} | ${median(r.p50).toFixed(3)} | ${median(r.p99).toFixed(3)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${pct(r.other)} |\n`);
  }
  // The translation's own cost: the translated row's overhead minus the chat row's, round by round.
  const by = (kind: string, a: string, b: string, p: "p50" | "p99") => results[`${kind}: ${a}: overhead`]![p].map((x, i) => x - results[`${kind}: ${b}: overhead`]![p][i]!);
  process.stdout.write("\n| difference of overheads | p50 | p99 | p50 by round |\n|---|---|---|---|\n");
  for (const kind of ["non-streamed", "stream first byte"]) {
    for (const r of rows.slice(1)) {
      const p50 = by(kind, r.name, rows[0]!.name, "p50");
      const p99 = by(kind, r.name, rows[0]!.name, "p99");
      process.stdout.write(`| ${kind}: ${r.name} minus chat | ${median(p50).toFixed(3)} | ${median(p99).toFixed(3)} | ${fmt(p50)} |\n`);
    }
  }
} finally {
  await ours.stack.stop();
  await stopChild(mock.child);
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);
