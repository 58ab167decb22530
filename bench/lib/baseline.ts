// The bench's guard: the figures of a run (as ratios to what the same run measured of Portkey and
// of the direct call, where the machine's speed would otherwise decide them) against a committed
// baseline (bench/baseline.json). A figure more than BENCH_TOLERANCE (15%) worse than its baseline
// is a regression: the bench measures its row again once, and exits non-zero naming the rows that
// are still worse. `BENCH_BASELINE=write npm run bench` makes the run the new baseline.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { LoadCpu } from "./load";
import { overOf, type BenchResults, type Target } from "./report";
import type { RateResult } from "../load/fixed-rate";

export const BASELINE_FILE = path.join(import.meta.dirname, "..", "baseline.json");
export const TOLERANCE = Number(process.env.BENCH_TOLERANCE ?? 0.15);

/** Which rows of the run a figure comes from, so that a regression measures them again. */
export type RowKind = "throughput" | "overhead" | "streaming" | "memory";
type Figure = { value: number; better: "higher" | "lower"; row: RowKind; unit: string };
export type Figures = Record<string, Figure>;
/** `runs`: how many runs the figures are the medians of (one when absent). */
export type Baseline = { commit: string; date: string; runs?: number; figures: Record<string, { value: number; better: "higher" | "lower"; unit: string }> };

const withPg = (x: LoadCpu & { requests: number }) => ((x.cpuMs.target ?? NaN) + (x.cpuMs.postgres ?? 0)) / x.requests;
type Rate = RateResult & LoadCpu;

/** The run's guarded figures. */
export function figuresOf(r: BenchResults): Figures {
  const th = r.throughput;
  const f: Figures = {};
  const put = (name: string, value: number, better: Figure["better"], row: RowKind, unit: string) => {
    if (Number.isFinite(value)) f[name] = { value, better, row, unit };
  };
  if (th.ours && th.portkey) {
    put("throughput ours / Portkey", th.ours.rps / th.portkey.rps, "higher", "throughput", "×");
    put("CPU per request with PostgreSQL ours / Portkey", withPg(th.ours) / withPg(th.portkey), "lower", "throughput", "×");
  }
  if (th.ours && th.hit) put("cache hit throughput / uncached", th.hit.rps / th.ours.rps, "higher", "throughput", "×");
  if (th.ours && th.miss) put("cache miss throughput / uncached", th.miss.rps / th.ours.rps, "higher", "throughput", "×");
  const over = (rounds: Partial<Record<Target, Rate>>[], pick: (x: Rate) => number) => overOf(rounds, "ours", pick);
  put("overhead p50 at the fixed rate (ms over direct)", over(r.overhead, (x) => x.total.p50), "lower", "overhead", "ms");
  put("overhead p99 at the fixed rate (ms over direct)", over(r.overhead, (x) => x.total.p99), "lower", "overhead", "ms");
  put("stream first byte p50 (ms over direct)", over(r.streaming, (x) => x.firstByte.p50), "lower", "streaming", "ms");
  if (r.memory.ours) put("RSS of all the gateway's processes after the run (MB)", r.memory.ours.afterMb, "lower", "memory", "MB");
  return f;
}

export function readBaseline(): Baseline | null {
  return existsSync(BASELINE_FILE) ? (JSON.parse(readFileSync(BASELINE_FILE, "utf8")) as Baseline) : null;
}

/**
 * Each figure's median over several runs (the upper median of an even count), so that one quick or
 * slow stretch of the machine does not set the baseline; a figure only some runs have is left out.
 */
export function medianFigures(runs: Figures[]): Figures {
  const out: Figures = {};
  for (const [name, first] of Object.entries(runs[0] ?? {})) {
    const values = runs.map((r) => r[name]?.value).filter((v): v is number => v !== undefined);
    if (values.length !== runs.length) continue;
    values.sort((a, b) => a - b);
    out[name] = { ...first, value: values[Math.floor(values.length / 2)]! };
  }
  return out;
}

export function writeBaseline(figures: Figures, commit: string, date: string, runs = 1): void {
  const out: Baseline = { commit, date, ...(runs > 1 ? { runs } : {}), figures: Object.fromEntries(Object.entries(figures).map(([k, { value, better, unit }]) => [k, { value: Number(value.toFixed(4)), better, unit }])) };
  writeFileSync(BASELINE_FILE, `${JSON.stringify(out, null, 2)}\n`);
}

export type Regression = { name: string; row: RowKind; baseline: number; now: number; worseBy: number };

/**
 * Figures more than TOLERANCE worse than the baseline. Latency overheads are small differences of
 * two noisy figures: one is also let through when it moved by less than 0.1 ms.
 */
export function regressions(base: Baseline, now: Figures): Regression[] {
  const out: Regression[] = [];
  for (const [name, b] of Object.entries(base.figures)) {
    const n = now[name];
    if (!n) continue;
    const worseBy = b.better === "higher" ? (b.value - n.value) / b.value : (n.value - b.value) / Math.abs(b.value || 1);
    const slack = n.unit === "ms" ? n.value - b.value <= 0.1 : false;
    if (worseBy > TOLERANCE && !slack) out.push({ name, row: n.row, baseline: b.value, now: n.value, worseBy });
  }
  return out;
}

const fmt = (v: number, unit: string) => (unit === "×" ? `${v.toFixed(2)}×` : unit === "ms" ? `${v.toFixed(3)} ms` : `${v.toFixed(1)} ${unit}`);

/** The comparison as markdown: every guarded figure, its baseline, and whether it held. */
export function comparisonTable(base: Baseline | null, now: Figures, failed: Regression[]): string {
  if (!base) return `No baseline (${path.basename(BASELINE_FILE)}): \`BENCH_BASELINE=write npm run bench\` makes this run the baseline.`;
  const bad = new Set(failed.map((r) => r.name));
  const rows = Object.entries(now).map(([name, n]) => {
    const b = base.figures[name];
    const change = b ? `${(((n.value - b.value) / Math.abs(b.value || 1)) * 100).toFixed(0)}%` : "—";
    return `| ${name} | ${b ? fmt(b.value, n.unit) : "—"} | ${fmt(n.value, n.unit)} | ${change} | ${bad.has(name) ? "**worse than the baseline by more than " + Math.round(TOLERANCE * 100) + "%**" : "ok"} |`;
  });
  return [`Against the baseline of \`${base.commit}\` (${base.date}${base.runs ? `, the medians of ${base.runs} runs` : ""}), tolerance ${Math.round(TOLERANCE * 100)}%:`, "", "| figure | baseline | this run | change | |", "|---|---|---|---|---|", ...rows].join("\n");
}
