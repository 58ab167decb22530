// Training of the model of model.ts: mini-batches of examples, mean cross-entropy per trained
// token, Adagrad, a seeded PRNG for the initial weights and each epoch's shuffle. A run is a
// sequence of step() calls; state() at any step boundary resumes to the very same result.
import { completionFeatures, END } from "./features";
import type { Hyperparameters, TrainingPair } from "./examples";
import { hidden, softmax, type TrainState } from "./model";

/** Hidden size: the width of every embedding. */
export const DIM = 32;
/** Adagrad's learning rate at learning_rate_multiplier 1. */
export const BASE_LEARNING_RATE = 0.3;
/** The loss of a validation token the model cannot produce at all (not in its vocabulary). */
const UNKNOWN_TOKEN_LOSS = -Math.log(1e-6);

export type TrainExample = { tokens: number; pairs: TrainingPair[] };
export type TrainInput = { training: TrainExample[]; validation: TrainExample[]; hyper: Hyperparameters; seed: number };
export type StepMetrics = {
  step: number;
  total_steps: number;
  train_loss: number;
  train_mean_token_accuracy: number;
  valid_loss?: number;
  valid_mean_token_accuracy?: number;
};

/** One token to predict: its feature rows and its class (-1 when outside the vocabulary). */
type Row = { rows: Int32Array; target: number };

/** mulberry32 over a 32-bit state. */
export function nextRandom(state: { rng: number }): number {
  state.rng = (state.rng + 0x6d2b79f5) >>> 0;
  let t = state.rng;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** The initial state: vocabulary and features from the training pairs, small random weights. */
export function initialState(input: TrainInput): TrainState {
  const tokens = new Set<number>();
  const keys: number[] = [];
  const seen = new Set<number>();
  let maxCompletion = 0;
  for (const ex of input.training) {
    for (const pair of ex.pairs) {
      maxCompletion = Math.max(maxCompletion, pair.completion.length);
      for (const t of pair.completion) tokens.add(t);
      for (const row of completionFeatures(pair.prompt, pair.completion)) {
        for (const f of row.features) {
          if (seen.has(f.key)) continue;
          seen.add(f.key);
          keys.push(f.key);
        }
      }
    }
  }
  const vocab = Int32Array.from([END, ...[...tokens].sort((a, b) => a - b)]);
  const rng = { rng: (input.seed >>> 0) ^ 0x5bd1e995 };
  const d = DIM;
  const emb = new Float32Array(keys.length * d);
  for (let i = 0; i < emb.length; i++) emb[i] = (nextRandom(rng) * 2 - 1) / d;
  const out = new Float32Array(vocab.length * d);
  for (let i = 0; i < out.length; i++) out[i] = (nextRandom(rng) * 2 - 1) * 0.05;
  return {
    dim: d,
    vocab,
    keys: Uint32Array.from(keys),
    emb,
    out,
    bias: new Float32Array(vocab.length),
    maxCompletion,
    embAcc: new Float32Array(emb.length),
    outAcc: new Float32Array(out.length),
    biasAcc: new Float32Array(vocab.length),
    step: 0,
    rng: rng.rng,
    order: new Int32Array(input.training.length).map((_, i) => i),
    trainedTokens: 0,
  };
}

export class Trainer {
  readonly stepsPerEpoch: number;
  readonly totalSteps: number;
  private readonly train: Row[][];
  private readonly valid: Row[][];
  private readonly h: Float32Array;
  private readonly probs: Float32Array;
  private readonly dz: Float32Array;
  private readonly dh: Float32Array;
  private readonly gOut: Float32Array;
  private readonly gBias: Float32Array;
  private readonly gEmb: Float32Array;
  private readonly touched: Uint8Array;
  private readonly lr: number;

  constructor(
    private readonly input: TrainInput,
    readonly s: TrainState = initialState(input),
  ) {
    const { batch_size, n_epochs, learning_rate_multiplier } = input.hyper;
    this.stepsPerEpoch = Math.ceil(input.training.length / batch_size);
    this.totalSteps = this.stepsPerEpoch * n_epochs;
    this.lr = BASE_LEARNING_RATE * learning_rate_multiplier;
    const rowOf = new Map<number, number>();
    s.keys.forEach((k, i) => rowOf.set(k, i));
    const classOf = new Map<number, number>();
    s.vocab.forEach((t, i) => classOf.set(t, i));
    const rowsOf = (ex: TrainExample): Row[] =>
      ex.pairs.flatMap((pair) =>
        completionFeatures(pair.prompt, pair.completion).map((r) => ({
          rows: Int32Array.from(r.features.flatMap((f) => (rowOf.has(f.key) ? [rowOf.get(f.key)!] : []))),
          target: classOf.get(r.target) ?? -1,
        })),
      );
    this.train = input.training.map(rowsOf);
    this.valid = input.validation.map(rowsOf);
    const d = s.dim;
    const v = s.vocab.length;
    this.h = new Float32Array(d);
    this.probs = new Float32Array(v);
    this.dz = new Float32Array(v);
    this.dh = new Float32Array(d);
    this.gOut = new Float32Array(v * d);
    this.gBias = new Float32Array(v);
    this.gEmb = new Float32Array(s.keys.length * d);
    this.touched = new Uint8Array(s.keys.length);
  }

  get done(): boolean {
    return this.s.step >= this.totalSteps;
  }

  /** True when the last step ended an epoch. */
  get atEpochEnd(): boolean {
    return this.s.step > 0 && this.s.step % this.stepsPerEpoch === 0;
  }

  /** Loss and accuracy of examples without learning from them. */
  evaluate(examples: Row[][]): { loss: number; accuracy: number } {
    let loss = 0;
    let right = 0;
    let count = 0;
    for (const ex of examples) {
      for (const row of ex) {
        hidden(this.s, row.rows, this.h);
        const best = softmax(this.s, this.h, this.probs);
        loss += row.target < 0 ? UNKNOWN_TOKEN_LOSS : -Math.log(Math.max(this.probs[row.target]!, 1e-12));
        if (best === row.target) right++;
        count++;
      }
    }
    return { loss: count ? loss / count : 0, accuracy: count ? right / count : 0 };
  }

  /** The whole validation file (for checkpoints); null without one. */
  fullValidation(): { loss: number; accuracy: number } | null {
    return this.valid.length ? this.evaluate(this.valid) : null;
  }

  /** One mini-batch: forward, backward, Adagrad. */
  step(): StepMetrics {
    const s = this.s;
    const { batch_size } = this.input.hyper;
    const n = this.train.length;
    const within = s.step % this.stepsPerEpoch;
    if (within === 0) {
      // a new epoch: Fisher-Yates shuffle of the example order
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(nextRandom(s) * (i + 1));
        const t = s.order[i]!;
        s.order[i] = s.order[j]!;
        s.order[j] = t;
      }
    }
    const batch = Array.from(s.order.subarray(within * batch_size, Math.min(n, (within + 1) * batch_size)));
    const tokens = batch.reduce((sum, i) => sum + this.train[i]!.length, 0);
    const d = s.dim;
    const v = s.vocab.length;
    const { h, probs, dz, dh, gOut, gBias, gEmb, touched } = this;
    gOut.fill(0);
    gBias.fill(0);
    const touchedRows: number[] = [];
    let loss = 0;
    let right = 0;
    for (const i of batch) {
      for (const row of this.train[i]!) {
        hidden(s, row.rows, h);
        const best = softmax(s, h, probs);
        loss += -Math.log(Math.max(probs[row.target]!, 1e-12));
        if (best === row.target) right++;
        const scale = 1 / tokens;
        for (let c = 0; c < v; c++) dz[c] = probs[c]! * scale;
        dz[row.target]! -= scale;
        dh.fill(0);
        for (let c = 0; c < v; c++) {
          const g = dz[c]!;
          gBias[c]! += g;
          const base = c * d;
          for (let j = 0; j < d; j++) {
            gOut[base + j]! += g * h[j]!;
            dh[j]! += g * s.out[base + j]!;
          }
        }
        const share = 1 / row.rows.length;
        for (const r of row.rows) {
          if (!touched[r]) {
            touched[r] = 1;
            touchedRows.push(r);
            gEmb.fill(0, r * d, r * d + d);
          }
          const base = r * d;
          for (let j = 0; j < d; j++) gEmb[base + j]! += dh[j]! * share;
        }
      }
    }
    const lr = this.lr;
    const adagrad = (param: Float32Array, acc: Float32Array, grad: Float32Array, from: number, to: number) => {
      for (let k = from; k < to; k++) {
        const g = grad[k]!;
        if (g === 0) continue;
        acc[k]! += g * g;
        param[k]! -= (lr * g) / (Math.sqrt(acc[k]!) + 1e-8);
      }
    };
    adagrad(s.out, s.outAcc, gOut, 0, gOut.length);
    adagrad(s.bias, s.biasAcc, gBias, 0, gBias.length);
    for (const r of touchedRows) {
      adagrad(s.emb, s.embAcc, gEmb, r * d, r * d + d);
      touched[r] = 0;
    }
    s.step++;
    s.trainedTokens += batch.reduce((sum, i) => sum + this.input.training[i]!.tokens, 0);
    const metrics: StepMetrics = {
      step: s.step,
      total_steps: this.totalSteps,
      train_loss: tokens ? loss / tokens : 0,
      train_mean_token_accuracy: tokens ? right / tokens : 0,
    };
    if (this.valid.length) {
      // a validation batch of the same size, taken in turn through the validation file
      const nv = this.valid.length;
      const start = ((s.step - 1) * batch_size) % nv;
      const picked = Array.from({ length: Math.min(batch_size, nv) }, (_, k) => this.valid[(start + k) % nv]!);
      const valid = this.evaluate(picked);
      metrics.valid_loss = valid.loss;
      metrics.valid_mean_token_accuracy = valid.accuracy;
    }
    return metrics;
  }
}
