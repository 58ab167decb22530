// The bench's guard: a baseline made of several runs, and what it lets through.
import { describe, expect, it } from "vitest";
import { medianFigures, regressions, type Figures } from "../../bench/lib/baseline";

const run = (throughput: number, p50: number, extra?: number): Figures => ({
  "throughput ours / Portkey": { value: throughput, better: "higher", row: "throughput", unit: "×" },
  "overhead p50 at the fixed rate (ms over direct)": { value: p50, better: "lower", row: "overhead", unit: "ms" },
  ...(extra === undefined ? {} : { "RSS of all the gateway's processes after the run (MB)": { value: extra, better: "lower" as const, row: "memory" as const, unit: "MB" } }),
});

describe("a baseline from several runs", () => {
  it("takes each figure's median, not one run's, and leaves out a figure some runs lack", () => {
    const m = medianFigures([run(3.5, 1.3, 230), run(4.4, 0.65), run(3.6, 0.98, 280)]);
    expect(m["throughput ours / Portkey"]!.value).toBe(3.6);
    expect(m["overhead p50 at the fixed rate (ms over direct)"]!.value).toBe(0.98);
    expect(m["RSS of all the gateway's processes after the run (MB)"]).toBeUndefined();
    // An even count takes the upper median; one run is its own baseline.
    expect(medianFigures([run(3, 1), run(4, 2)])["throughput ours / Portkey"]!.value).toBe(4);
    expect(medianFigures([run(3, 1)])).toEqual(run(3, 1));
  });

  it("flags a figure more than 15% worse, and a latency only when it also moved by more than 0.1 ms", () => {
    const base = { commit: "x", date: "d", runs: 3, figures: Object.fromEntries(Object.entries(run(3.6, 0.5)).map(([k, f]) => [k, { value: f.value, better: f.better, unit: f.unit }])) };
    expect(regressions(base, run(3.1, 0.5))).toEqual([]);
    expect(regressions(base, run(3.0, 0.5)).map((r) => r.name)).toEqual(["throughput ours / Portkey"]);
    expect(regressions(base, run(3.6, 0.59))).toEqual([]);
    expect(regressions(base, run(3.6, 0.61)).map((r) => r.name)).toEqual(["overhead p50 at the fixed rate (ms over direct)"]);
  });
});
