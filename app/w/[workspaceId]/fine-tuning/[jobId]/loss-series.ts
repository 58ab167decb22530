// The training and validation loss per step, read from a job's `metrics` events
// (data: {step, total_steps, train_loss, valid_loss?}), and the scales the chart draws them on.
import type { FtEventView } from "../job-shape";

export type Point = { step: number; loss: number };
export type LossSeries = { train: Point[]; valid: Point[]; totalSteps: number | null };

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** One point per step and series (a step reported twice keeps its last report), in step order. */
export function lossSeries(events: readonly FtEventView[]): LossSeries {
  const train = new Map<number, number>();
  const valid = new Map<number, number>();
  let totalSteps: number | null = null;
  // Events come newest first: read them oldest first so a repeated step keeps the newest value.
  for (const e of [...events].reverse()) {
    if (e.type !== "metrics" || !e.data || typeof e.data !== "object") continue;
    const d = e.data as Record<string, unknown>;
    const step = num(d.step);
    if (step === null) continue;
    const t = num(d.train_loss);
    const v = num(d.valid_loss);
    if (t !== null) train.set(step, t);
    if (v !== null) valid.set(step, v);
    totalSteps = num(d.total_steps) ?? totalSteps;
  }
  const points = (m: Map<number, number>) => [...m].map(([step, loss]) => ({ step, loss })).sort((a, b) => a.step - b.step);
  return { train: points(train), valid: points(valid), totalSteps };
}

/** About `count` round tick values from `min` (or below) to `max` (or above); at least two, so a flat line has a height. */
export function niceTicks(min: number, max: number, count = 4): number[] {
  const span = max - min || Math.abs(max) || 1;
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks = [Math.floor(min / step) * step];
  while (ticks.length < 2 || ticks[ticks.length - 1]! < max) ticks.push(Number((ticks[0]! + ticks.length * step).toPrecision(12)));
  return ticks;
}
