// The result file of a fine-tuning job, as OpenAI writes it: one CSV row of metrics per step,
// empty cells where there is no validation file.
import type { StepMetrics } from "./trainer";

const cell = (x: number | undefined) => (x === undefined ? "" : String(Number(x.toFixed(6))));

export function metricsCsv(metrics: StepMetrics[]): string {
  const rows = [...metrics].sort((a, b) => a.step - b.step).map((m) =>
    [m.step, cell(m.train_loss), cell(m.train_mean_token_accuracy), cell(m.valid_loss), cell(m.valid_mean_token_accuracy)].join(","),
  );
  return ["step,train_loss,train_accuracy,valid_loss,valid_mean_token_accuracy", ...rows].join("\n") + "\n";
}
