// Percentiles of latency samples given in microseconds, reported in milliseconds.
export type Summary = { count: number; p50: number; p90: number; p99: number; max: number; mean: number };

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function summarize(samplesUs: number[]): Summary {
  const sorted = Float64Array.from(samplesUs).sort();
  const arr = Array.from(sorted);
  const ms = (us: number) => Math.round(us) / 1000;
  const mean = arr.length ? arr.reduce((a, b) => a + b, 0) / arr.length : NaN;
  return {
    count: arr.length,
    p50: ms(percentile(arr, 50)),
    p90: ms(percentile(arr, 90)),
    p99: ms(percentile(arr, 99)),
    max: ms(arr.length ? arr[arr.length - 1]! : NaN),
    mean: ms(mean),
  };
}

/** A number of ms with 3 decimals (microsecond resolution), or "n/a". */
export const ms3 = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : "n/a");
