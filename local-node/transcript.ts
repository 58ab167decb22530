// The transcript of an upload. Its timing is real (the decoded duration, and each segment's
// no_speech_prob from the audio's measured loudness). Its text is real speech recognition when
// PocketSphinx is installed (recognizer.ts); otherwise it is SIMULATED: words from the simulated
// language model (sim-text.ts), seeded by a hash of the uploaded bytes and the prompt, at a
// plausible speaking rate.
import { createHash } from "node:crypto";
import { deflateRawSync } from "node:zlib";
import type { DecodedAudio } from "./ffmpeg";
import type { RecognizedWord } from "./recognizer";
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

type TimedWord = Word & { shown: string; group: number };

/** Simulated words spread evenly over the duration, a group per sentence. */
function simulatedWords(rng: ReturnType<typeof seededRng>, duration: number): TimedWord[] {
  const sentences = wordsFor(rng, duration);
  const slot = duration / sentences.reduce((n, s) => n + s.length, 0);
  const out: TimedWord[] = [];
  sentences.forEach((sent, group) =>
    sent.forEach((shown) => {
      const start = out.length * slot;
      out.push({ shown, word: shown.replace(/[.,!?]$/, ""), start: round(start, 2), end: round(start + slot * (0.75 + rng.next() * 0.2), 2), group });
    }),
  );
  return out;
}

/**
 * The transcript of an upload: recognised words when a recogniser ran (recognizer.ts), else
 * simulated ones; segments follow the recogniser's utterances (or the simulated sentences).
 */
export function transcribe(upload: Buffer, audio: DecodedAudio, prompt: string, temperature: number, recognized: RecognizedWord[] | null): Transcript {
  const digest = createHash("sha256").update(upload).update("\0").update(prompt).digest("hex");
  const rng = seededRng(digest);
  const timed: TimedWord[] = recognized
    ? recognized.map((w) => ({ shown: w.word, word: w.word, start: round(w.start, 2), end: round(w.end, 2), group: w.utterance }))
    : simulatedWords(rng, audio.duration);
  const segments: Segment[] = [];
  for (let i = 0; i < timed.length; ) {
    const chunk: TimedWord[] = [];
    while (i < timed.length && chunk.length < MAX_WORDS_PER_SEGMENT && (!chunk.length || timed[i]!.group === chunk[0]!.group)) chunk.push(timed[i++]!);
    const text = ` ${chunk.map((w) => w.shown).join(" ")}`;
    const start = chunk[0]!.start;
    const end = Math.max(chunk.at(-1)!.end, start);
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
  const words = timed.map(({ word, start, end }) => ({ word, start, end }));
  return { text: segments.map((seg) => seg.text).join("").trim(), duration: audio.duration, segments, words };
}
