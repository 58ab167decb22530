// A real (if small) embedding model: hashed character n-grams. The text is lowercased, its
// whitespace collapsed and padded with a space; every 3-gram and 4-gram of code points is hashed
// with FNV-1a into one of 512 buckets with a hash-chosen sign (the "hashing trick"). That sparse
// vector is then rotated by a fixed orthogonal transform (a Walsh-Hadamard transform with its
// rows in a fixed shuffled order), which keeps every cosine exactly but spreads each n-gram over
// all 512 dimensions, so that any prefix of the vector (`dimensions`) is a random projection that
// still ranks texts sensibly. Finally the vector is L2-normalised. Texts that share many n-grams
// score a high cosine similarity.
import { fnv1a, seededRng } from "./random";

export const EMBED_DIMENSIONS = 512;
const NGRAM_SIZES = [3, 4];
const SIGN_SEED = 0x9747b28c;

function normalise(text: string): string[] {
  const clean = text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
  return Array.from(` ${clean} `);
}

function l2normalise(v: Float64Array): Float64Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}

/** In-place fast Walsh-Hadamard transform (length a power of two): an orthogonal map, up to scale. */
function hadamard(v: Float64Array): void {
  for (let h = 1; h < v.length; h *= 2) {
    for (let i = 0; i < v.length; i += h * 2) {
      for (let j = i; j < i + h; j++) {
        const a = v[j]!;
        const b = v[j + h]!;
        v[j] = a + b;
        v[j + h] = a - b;
      }
    }
  }
}

/** A fixed shuffle of the output rows (Fisher-Yates from a fixed seed). */
const ROW_ORDER = (() => {
  const rng = seededRng("local-embed-ngram rows");
  const order = Array.from({ length: EMBED_DIMENSIONS }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
})();

/** The full 512-dimensional unit vector of `text`. */
export function embed(text: string): Float64Array {
  const chars = normalise(text);
  const v = new Float64Array(EMBED_DIMENSIONS);
  for (const n of NGRAM_SIZES) {
    for (let i = 0; i + n <= chars.length; i++) {
      const gram = chars.slice(i, i + n).join("");
      const bucket = fnv1a(gram) % EMBED_DIMENSIONS;
      v[bucket] = v[bucket]! + (fnv1a(gram, SIGN_SEED) & 1 ? 1 : -1);
    }
  }
  hadamard(v);
  return l2normalise(Float64Array.from(ROW_ORDER, (row) => v[row]!));
}

/**
 * The embedding OpenAI-style: `dimensions` first values of the full vector, re-normalised, as
 * float32 values (so the float and base64 encodings carry exactly the same numbers).
 */
export function embedding(text: string, dimensions = EMBED_DIMENSIONS): Float32Array {
  const full = embed(text);
  const v = dimensions < EMBED_DIMENSIONS ? l2normalise(full.slice(0, dimensions)) : full;
  return Float32Array.from(v);
}

/** Little-endian float32 bytes, base64: what the OpenAI SDKs decode for encoding_format "base64". */
export function toBase64(v: Float32Array): string {
  const bytes = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString("base64");
}
