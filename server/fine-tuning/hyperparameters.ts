// A job's hyperparameters, each a number or "auto", resolved to numbers before the job exists:
// the node always gets numbers, the job echoes them, and the hold is made for the epochs that will
// be trained. The "auto" rules are the built-in node's too (n = the training file's examples).

export type HyperparameterInput = {
  n_epochs?: number | "auto" | null;
  batch_size?: number | "auto" | null;
  learning_rate_multiplier?: number | "auto" | null;
};

export type Hyperparameters = { n_epochs: number; batch_size: number; learning_rate_multiplier: number };

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** "auto" (or absent) as OpenAI decides it, by the number of examples. */
export function autoHyperparameters(examples: number): Hyperparameters {
  const n = Math.max(examples, 1);
  return { n_epochs: clamp(Math.ceil(1000 / n), 3, 10), batch_size: clamp(Math.ceil(n / 50), 1, 8), learning_rate_multiplier: 1 };
}

/** Numbers given are kept; "auto" or absent ones follow autoHyperparameters. */
export function resolveHyperparameters(input: HyperparameterInput | null | undefined, examples: number): Hyperparameters {
  const auto = autoHyperparameters(examples);
  const pick = <K extends keyof Hyperparameters>(key: K): number => {
    const v = input?.[key];
    return typeof v === "number" ? v : auto[key];
  };
  return { n_epochs: pick("n_epochs"), batch_size: pick("batch_size"), learning_rate_multiplier: pick("learning_rate_multiplier") };
}

/** Optimizer steps of a job: ceil(examples / batch size) per epoch, times the epochs. */
export function totalSteps(examples: number, h: Hyperparameters): number {
  return Math.ceil(examples / h.batch_size) * h.n_epochs;
}
