// The fine-tuned model: an embedding per sparse feature (features.ts), averaged into a hidden
// vector h, then logits = W h + b over the tokens of the training completions plus END, and a
// softmax. Its weights, and the trainer's state around them, are typed arrays that serialise to
// one binary file (a JSON header, then the arrays).
import { END, type Feature } from "./features";

export type Weights = {
  dim: number;
  /** Class index -> token id (END is class 0). */
  vocab: Int32Array;
  /** Row index -> feature key. */
  keys: Uint32Array;
  /** keys.length x dim. */
  emb: Float32Array;
  /** vocab.length x dim. */
  out: Float32Array;
  bias: Float32Array;
  /** The longest completion trained on (bounds generation when no max_tokens is given). */
  maxCompletion: number;
};

/** Everything a run needs to go on exactly where it stopped: weights, Adagrad sums, RNG, order. */
export type TrainState = Weights & {
  embAcc: Float32Array;
  outAcc: Float32Array;
  biasAcc: Float32Array;
  step: number;
  rng: number;
  order: Int32Array;
  trainedTokens: number;
};

/** Weights with their lookup tables, ready to predict. */
export type LoadedModel = Weights & { rowOf: Map<number, number>; classOf: Map<number, number> };

export function loadModel(w: Weights): LoadedModel {
  const rowOf = new Map<number, number>();
  w.keys.forEach((k, i) => rowOf.set(k, i));
  const classOf = new Map<number, number>();
  w.vocab.forEach((t, i) => classOf.set(t, i));
  return { ...w, rowOf, classOf };
}

/** h = the mean of the rows' embeddings (zero when there are none). */
export function hidden(w: Weights, rows: ArrayLike<number>, h: Float32Array): void {
  h.fill(0);
  const d = w.dim;
  for (let r = 0; r < rows.length; r++) {
    const base = rows[r]! * d;
    for (let j = 0; j < d; j++) h[j]! += w.emb[base + j]!;
  }
  if (rows.length) for (let j = 0; j < d; j++) h[j]! /= rows.length;
}

/** probs = softmax(W h + b), in place; returns the class of the highest probability. */
export function softmax(w: Weights, h: Float32Array, probs: Float32Array): number {
  const d = w.dim;
  let max = -Infinity;
  let best = 0;
  for (let c = 0; c < w.vocab.length; c++) {
    let z = w.bias[c]!;
    const base = c * d;
    for (let j = 0; j < d; j++) z += w.out[base + j]! * h[j]!;
    probs[c] = z;
    if (z > max) {
      max = z;
      best = c;
    }
  }
  let sum = 0;
  for (let c = 0; c < w.vocab.length; c++) sum += probs[c] = Math.exp(probs[c]! - max);
  for (let c = 0; c < w.vocab.length; c++) probs[c]! /= sum;
  return best;
}

/** The next-token distribution for the given features: the known ones only. */
export function predict(m: LoadedModel, features: Feature[]): { probs: Float32Array; best: number } {
  const rows: number[] = [];
  for (const f of features) {
    const row = m.rowOf.get(f.key);
    if (row !== undefined) rows.push(row);
  }
  const h = new Float32Array(m.dim);
  const probs = new Float32Array(m.vocab.length);
  hidden(m, rows, h);
  const best = softmax(m, h, probs);
  return { probs, best };
}

export { END };

// ---- serialisation ----

type Header = {
  format: 1;
  dim: number;
  maxCompletion: number;
  vocab: number;
  keys: number;
  order: number;
  optimizer: boolean;
  step: number;
  rng: number;
  trainedTokens: number;
};

/** One file: 4 bytes of header length, the JSON header padded to 4 bytes, then the arrays. */
export function serialize(s: Weights | TrainState): Buffer {
  const full = "embAcc" in s;
  const header: Header = {
    format: 1,
    dim: s.dim,
    maxCompletion: s.maxCompletion,
    vocab: s.vocab.length,
    keys: s.keys.length,
    order: full ? s.order.length : 0,
    optimizer: full,
    step: full ? s.step : 0,
    rng: full ? s.rng : 0,
    trainedTokens: full ? s.trainedTokens : 0,
  };
  let json = JSON.stringify(header);
  json += " ".repeat((4 - (Buffer.byteLength(json) % 4)) % 4);
  const arrays: ArrayBufferView[] = [s.vocab, s.keys, s.emb, s.out, s.bias];
  if (full) arrays.push(s.order, s.embAcc, s.outAcc, s.biasAcc);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(Buffer.byteLength(json));
  return Buffer.concat([len, Buffer.from(json), ...arrays.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength))]);
}

export function deserialize(buf: Buffer): TrainState | Weights {
  const headerLength = buf.readUInt32LE(0);
  const header = JSON.parse(buf.subarray(4, 4 + headerLength).toString()) as Header;
  let at = 4 + headerLength;
  const take = <T>(make: (b: ArrayBuffer) => T, count: number): T => {
    const bytes = buf.subarray(at, at + count * 4);
    at += count * 4;
    return make(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  };
  const d = header.dim;
  const weights: Weights = {
    dim: d,
    maxCompletion: header.maxCompletion,
    vocab: take((b) => new Int32Array(b), header.vocab),
    keys: take((b) => new Uint32Array(b), header.keys),
    emb: take((b) => new Float32Array(b), header.keys * d),
    out: take((b) => new Float32Array(b), header.vocab * d),
    bias: take((b) => new Float32Array(b), header.vocab),
  };
  if (!header.optimizer) return weights;
  return {
    ...weights,
    order: take((b) => new Int32Array(b), header.order),
    embAcc: take((b) => new Float32Array(b), header.keys * d),
    outAcc: take((b) => new Float32Array(b), header.vocab * d),
    biasAcc: take((b) => new Float32Array(b), header.vocab),
    step: header.step,
    rng: header.rng,
    trainedTokens: header.trainedTokens,
  };
}
