// The transcript of an upload. Its timing is real (the decoded duration, and each segment's
// no_speech_prob from the audio's measured loudness), its TEXT IS SIMULATED: no offline speech
// recogniser is installed, so the words come from the simulated language model (sim-text.ts),
// seeded by a hash of the uploaded bytes and the prompt, at a plausible speaking rate.
import { createHash } from "node:crypto";
import { deflateRawSync } from "node:zlib";
import type { DecodedAudio } from "./ffmpeg";
import { seededRng } from "./random";
import { sentence } from "./sim-text";
import { encode } from "./tokenizer";

export type Word = { word: string; start: number; end: number };
export type Segment = {
  id: number;
  seek: number;
  start: number;
  end: number;
  text: string;
  tokens: number[];
  temperature: number;
  avg_logprob: number;
  compression_ratio: number;
  no_speech_prob: number;
};
export type Transcript = { text: string; duration: number; segments: Segment[]; words: Word[] };

const MAX_WORDS_PER_SEGMENT = 24;
const round = (x: number, digits = 3) => Number(x.toFixed(digits));

/** Fraction of near-silent 20 ms frames of the decoded audio between `start` and `end` (seconds). */
function silence(audio: DecodedAudio, start: number, end: number): number {
  const frame = Math.round(audio.sampleRate * 0.02);
  let quiet = 0;
  let frames = 0;
  for (let at = Math.floor(start * audio.sampleRate); at + frame <= Math.min(audio.samples.length, end * audio.sampleRate); at += frame) {
    let energy = 0;
    for (let i = at; i < at + frame; i++) energy += audio.samples[i]! * audio.samples[i]!;
    frames++;
    if (Math.sqrt(energy / frame) < 200) quiet++;
  }
  return frames ? quiet / frames : 1;
}

/** Simulated words, as many as the duration fits at 2.2-2.8 words per second (at least one). */
function wordsFor(rng: ReturnType<typeof seededRng>, duration: number): string[][] {
  const wanted = Math.max(1, Math.round(duration * (2.2 + rng.next() * 0.6)));
  const out: string[][] = [];
  let count = 0;
  while (count < wanted) {
    let words = sentence(rng).split(" ");
    if (count + words.length > wanted) {
      words = words.slice(0, wanted - count);
      words[words.length - 1] = `${words[words.length - 1]!.replace(/[.!]$/, "")}.`;
    }
    out.push(words);
    count += words.length;
  }
  return out;
}

export function transcribe(upload: Buffer, audio: DecodedAudio, prompt: string, temperature: number): Transcript {
  const digest = createHash("sha256").update(upload).update("\0").update(prompt).digest("hex");
  const rng = seededRng(digest);
  const duration = audio.duration;
  const sentences = wordsFor(rng, duration);
  const total = sentences.reduce((n, s) => n + s.length, 0);
  const slot = duration / total;
  const words: Word[] = [];
  const segments: Segment[] = [];
  let index = 0;
  for (const sent of sentences) {
    for (let from = 0; from < sent.length; from += MAX_WORDS_PER_SEGMENT) {
      const chunk = sent.slice(from, from + MAX_WORDS_PER_SEGMENT);
      const segWords = chunk.map((w) => {
        const start = index++ * slot;
        const word: Word = { word: w.replace(/[.,!?]$/, ""), start: round(start, 2), end: round(start + slot * (0.75 + rng.next() * 0.2), 2) };
        words.push(word);
        return word;
      });
      const text = ` ${chunk.join(" ")}`;
      const start = segWords[0]!.start;
      const end = round(index * slot, 2);
      segments.push({
        id: segments.length,
        seek: Math.floor(start / 30) * 3000,
        start,
        end,
        text,
        tokens: encode(text),
        temperature,
        avg_logprob: round(-0.15 - rng.next() * 0.35, 6),
        compression_ratio: round(Buffer.byteLength(text) / Math.max(1, deflateRawSync(text).length), 6),
        no_speech_prob: round(Math.min(0.99, silence(audio, start, end) * 0.9 + rng.next() * 0.02), 6),
      });
    }
  }
  return { text: segments.map((s) => s.text).join("").trim(), duration, segments, words };
}
