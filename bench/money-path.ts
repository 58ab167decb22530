// `npm run bench:money-path`: the exact-decimal work one chat call does on the request path, in
// process: its reservation's bound (maxChatBounds: the dearest prices times the request's size),
// the reservation rounded to the ledger's places, the charge of what the node reported
// (tokenCost), the charge capped by the hold and stored (toStored, Money.min) and the usage
// movement. Prints µs per call (median of 5 runs of BENCH_CALLS calls).
//
//   npm run bench:money-path
import { Money } from "../server/kernel/money";
import { toStored, usageMovement } from "../server/ledger/movements";
import { roundReservation } from "../server/ledger/meter";
import * as pricing from "../server/routing/catalog/pricing";
import type { ModelRow } from "../server/routing/catalog/model-row";

const N = Number(process.env.BENCH_CALLS ?? 200_000);
const row = {
  id: "bench-chat", contextLength: 128_000, maxOutputTokens: 4096,
  priceInputPer1m: "0.15", priceOutputPer1m: "0.6", priceCacheReadPer1m: "0.075", priceCacheWritePer1m: "0", priceReasoningPer1m: "0",
} as unknown as ModelRow;
const body = { model: "bench-chat", messages: [{ role: "user", content: "Say hello to the benchmark, in one short sentence." }], max_tokens: 32 };
const usage = { inputTokens: 17, cachedTokens: 0, outputTokens: 9, reasoningTokens: 0 };
// (Commits before maxChatBounds computed the two apart: the same bench runs on them, to compare.)
const older = pricing as unknown as { maxChatBounds?: typeof pricing.maxChatBounds; maxChatCost: typeof pricing.maxChatCost; maxChatTokens: typeof pricing.maxChatTokens };
const bounds = (r: ModelRow, b: typeof body) => older.maxChatBounds?.(r, b) ?? { maxCost: older.maxChatCost(r, b), tokens: older.maxChatTokens(r, b) };

function oneCall(i: number): unknown {
  const { maxCost, tokens } = bounds(row, body);
  const held = roundReservation(maxCost);
  const cost = pricing.tokenCost(row, usage);
  const capped = Money.min(toStored(cost), held);
  const movement = usageMovement({ workspaceId: "ws", apiKeyId: "key" }, capped, { eventId: `e${i}`, modelId: row.id, nodeId: "n", endpoint: "/v1/chat/completions", latencyMs: 1, planId: null, subject: null, tags: null, at: "", ...usage } as never);
  return [tokens, capped.toString(), toStored(movement.amount).toString()];
}

for (let i = 0; i < 20_000; i++) oneCall(i); // warm-up
const runs: number[] = [];
for (let r = 0; r < 5; r++) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) oneCall(i);
  runs.push(Number(process.hrtime.bigint() - t) / 1000 / N);
}
runs.sort((a, b) => a - b);
process.stdout.write(`The decimal work of one chat call, ${N.toLocaleString("en")} calls per run: ${runs[2]!.toFixed(2)} µs per call (median of 5 runs; runs ${runs.map((r) => r.toFixed(2)).join(", ")})\n`);
