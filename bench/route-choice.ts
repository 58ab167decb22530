// `npm run bench:route-choice`: what choosing a route's target costs, in-process, over 100,000
// choices per strategy (planRoute: conditions, then the strategy's order, health and cool-downs),
// as the route stage calls it. Prints the median and p99 in microseconds.
//
//   npm run bench:route-choice
import { loadRoute } from "../server/routing/routes/route-cache";
import { planRoute, type PlanContext } from "../server/routing/routes/plan-route";
import { recordLatency } from "../server/routing/routes/target-stats";
import { money } from "../server/kernel/money";

const N = Number(process.env.BENCH_CHOICES ?? 100_000);
const targets = [{ model: "m-a", weight: 70 }, { model: "m-b", weight: 20 }, { model: "m-c", weight: 10 }];
for (const [i, t] of targets.entries()) recordLatency(t.model, 10 + i * 5);
const prices = new Map([["m-a", money("0.0003")], ["m-b", money("0.0001")], ["m-c", money("0.0002")]]);
const routes = new Map();
const facts = () => ({ metadata: { tier: "paid" }, tags: {}, key: { id: "k", name: "n" }, plan: { id: "", name: "" }, subject: "", model: "r", params: {}, has_images: false, has_tools: false, prompt_tokens: 40n });
const ctx: PlanContext = { routes, workspaceId: "ws", facts, healthy: () => true, price: (m) => prices.get(m) ?? null };

const rows: string[] = [];
for (const strategy of ["weighted", "fallback", "least-latency", "lowest-cost", "least-busy", "weighted+condition"] as const) {
  const conditions = strategy === "weighted+condition" ? [{ when: "metadata.tier == 'free'", use: "m-c" }] : [];
  const route = loadRoute("ws", { name: "r", strategy: strategy === "weighted+condition" ? "weighted" : strategy, targets, conditions }, new Date())!;
  for (let i = 0; i < 10_000; i++) planRoute(route, ctx); // warm-up
  const times = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    planRoute(route, ctx);
    times[i] = Number(process.hrtime.bigint() - t) / 1000;
  }
  times.sort();
  rows.push(`| ${strategy} | ${times[N >> 1]!.toFixed(2)} | ${times[Math.floor(N * 0.99)]!.toFixed(2)} |`);
}
process.stdout.write(`Choosing a target, ${N.toLocaleString("en")} choices per strategy (3 targets), µs:\n\n| strategy | median | p99 |\n|---|---|---|\n${rows.join("\n")}\n`);
