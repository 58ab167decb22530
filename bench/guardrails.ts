// `npm run bench:guardrails`: what the guardrails' input stage costs a call, in-process, as the
// pipeline runs it (the request's texts found, each guardrail run in turn, redaction written back):
// a 4 KB chat prompt (one e-mail address in it) under `pii` (redact) plus a `deny` of 20 RE2
// patterns (block, none matching), and each alone; and the same prompt's answer under `pii` on the
// output. Prints the median and p99 in microseconds over BENCH_CALLS calls per row, after a warm-up.
// The calls are made as the gateway makes them at 200 req/s too: one every BENCH_GAP_MS (default
// 0: back to back), since a process that is idle between calls runs every layer on cold caches.
//
//   npm run bench:guardrails
import type { GuardrailRow } from "../server/identity/plans/plan-cache";
import { guardAnswer, guardInput } from "../server/guardrails/guard-call";

const N = Number(process.env.BENCH_CALLS ?? 20_000);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 0);

const row = (name: string, definition: Record<string, unknown>): GuardrailRow => ({ id: `gr_${name}`, scope: "ws", name, definition: { name, ...definition }, secret: null, updatedAt: new Date() });
const pii = row("pii", { type: "pii", stage: "both", action: "redact" });
const denyPatterns = Array.from({ length: 20 }, (_, i) => [`project\\s+codename${i}`, `internal[-_ ]only${i}`, `\\bacct-${i}\\d{6}\\b`, `do not share ${i}`][i % 4]!);
const deny = row("deny", { type: "deny", stage: "input", action: "block", patterns: denyPatterns });

const SENTENCE = "Please summarise the quarterly report below for the leadership team, keeping the figures exact and the tone neutral. ";
function prompt(): string {
  let text = "";
  while (text.length < 4096 - 40) text += SENTENCE;
  return `${text.slice(0, 2000)} Questions to jane.doe@example.com. ${text.slice(2000, 4096 - 40)}`;
}
const PROMPT = prompt();

const input = () => ({ model: "m", messages: [{ role: "system", content: "You are a careful analyst." }, { role: "user", content: PROMPT }] });
const answer = () => ({ object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: PROMPT }, finish_reason: "stop" }] });
const call = () => ({ requestId: "req_bench", workspaceId: "ws", model: "m", outcome: {} });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(run: () => Promise<unknown>): Promise<{ median: number; p99: number }> {
  for (let i = 0; i < 2_000; i++) await run();
  const times = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    if (GAP_MS) await sleep(GAP_MS);
    const t = process.hrtime.bigint();
    await run();
    times[i] = Number(process.hrtime.bigint() - t) / 1000;
  }
  times.sort();
  return { median: times[N >> 1]!, p99: times[Math.floor(N * 0.99)]! };
}

const rows: [string, () => Promise<unknown>][] = [
  ["input: pii (redact) + deny of 20 patterns (block)", () => guardInput([pii, deny], "chat", input(), call())],
  ["input: pii alone", () => guardInput([pii], "chat", input(), call())],
  ["input: deny of 20 patterns alone", () => guardInput([deny], "chat", input(), call())],
  ["output: pii (redact) on a 4 KB answer", () => guardAnswer([pii], answer(), call())],
  ["no guardrail: the request's copy alone (baseline of the rows)", async () => input()],
];

const out: string[] = [];
for (const [name, run] of rows) {
  const { median, p99 } = await measure(run);
  out.push(`| ${name} | ${median.toFixed(1)} | ${p99.toFixed(1)} |`);
}
process.stdout.write(`Guardrails on a ${PROMPT.length}-character prompt, ${N.toLocaleString("en")} calls per row${GAP_MS ? `, one every ${GAP_MS} ms` : ""}, µs:\n\n| row | median | p99 |\n|---|---|---|\n${out.join("\n")}\n`);
process.exit(0);
