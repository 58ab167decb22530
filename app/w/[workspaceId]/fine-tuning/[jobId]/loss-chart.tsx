// The loss chart of a job: training and validation loss per step as two lines on one inline SVG
// (no chart library), with round ticks, a legend and the latest values in words.
import { lossSeries, niceTicks, type Point } from "./loss-series";
import type { FtEventView } from "../job-shape";

const W = 640;
const H = 240;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };

export function LossChart({ events }: { events: readonly FtEventView[] }) {
  const { train, valid, totalSteps } = lossSeries(events);
  if (!train.length && !valid.length) {
    return <p className="py-6 text-sm text-slate-500">The loss appears here once the first training step has run.</p>;
  }
  const all = [...train, ...valid];
  const maxStep = Math.max(totalSteps ?? 0, ...all.map((p) => p.step), 1);
  const minStep = Math.min(...all.map((p) => p.step));
  const yTicks = niceTicks(Math.min(0, ...all.map((p) => p.loss)), Math.max(...all.map((p) => p.loss)));
  const yMin = yTicks[0]!;
  const yMax = yTicks[yTicks.length - 1]!;
  const xTicks = niceTicks(0, maxStep, 5).filter((s) => s <= maxStep);
  const x = (step: number) => PAD.left + ((step - Math.min(minStep, 0)) / (maxStep - Math.min(minStep, 0) || 1)) * (W - PAD.left - PAD.right);
  const y = (loss: number) => PAD.top + (1 - (loss - yMin) / (yMax - yMin || 1)) * (H - PAD.top - PAD.bottom);
  const path = (points: Point[]) => points.map((p, i) => `${i ? "L" : "M"}${x(p.step).toFixed(1)},${y(p.loss).toFixed(1)}`).join(" ");
  const last = (points: Point[]) => points[points.length - 1];
  const lastTrain = last(train);
  const lastValid = last(valid);

  return (
    <figure className="flex flex-col gap-2">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label="Training and validation loss per step" className="h-auto w-full max-w-3xl">
        {yTicks.map((t) => (
          <g key={`y${t}`}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} className="stroke-slate-200" strokeWidth={1} />
            <text x={PAD.left - 6} y={y(t)} dy="0.32em" textAnchor="end" className="fill-slate-500 text-[10px]">
              {t}
            </text>
          </g>
        ))}
        {xTicks.map((t) => (
          <text key={`x${t}`} x={x(t)} y={H - PAD.bottom + 16} textAnchor="middle" className="fill-slate-500 text-[10px]">
            {t}
          </text>
        ))}
        <text x={W - PAD.right} y={H - 2} textAnchor="end" className="fill-slate-400 text-[10px]">
          step
        </text>
        {train.length ? <path data-testid="loss-train" d={path(train)} fill="none" className="stroke-indigo-600" strokeWidth={2} /> : null}
        {valid.length ? <path data-testid="loss-valid" d={path(valid)} fill="none" className="stroke-amber-500" strokeWidth={2} strokeDasharray="5 3" /> : null}
      </svg>
      <figcaption className="flex flex-wrap items-center gap-4 text-xs text-slate-600">
        <span className="flex items-center gap-1">
          <span className="inline-block h-0.5 w-4 bg-indigo-600" aria-hidden /> Training loss
          {lastTrain ? <span data-testid="last-train-loss" className="tabular-nums"> {lastTrain.loss.toFixed(4)} at step {lastTrain.step}</span> : null}
        </span>
        {valid.length ? (
          <span className="flex items-center gap-1">
            <span className="inline-block h-0.5 w-4 border-t-2 border-dashed border-amber-500" aria-hidden /> Validation loss
            {lastValid ? <span data-testid="last-valid-loss" className="tabular-nums"> {lastValid.loss.toFixed(4)} at step {lastValid.step}</span> : null}
          </span>
        ) : null}
        {totalSteps ? <span className="tabular-nums">{Math.max(...all.map((p) => p.step))} of {totalSteps} steps</span> : null}
      </figcaption>
    </figure>
  );
}
