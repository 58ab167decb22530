// Real offline speech synthesis: espeak-ng compiled to WebAssembly/JavaScript
// (@echogarden/espeak-ng-emscripten). The engine is loaded once, on first use, and shared; it is
// synchronous, so text is synthesised one sentence at a time, yielding to the event loop between
// sentences, and each call sets its own voice and rate (requests may interleave).
import type { ESpeakNGWorker } from "@echogarden/espeak-ng-emscripten";
import { setImmediate as tick } from "node:timers/promises";

/** OpenAI voice names -> espeak voice + variant (fixed, so a voice always sounds the same). */
export const VOICES: Record<string, string> = {
  alloy: "en-us+f2",
  ash: "en-us+m3",
  ballad: "en+m2",
  coral: "en-us+f4",
  echo: "en-us+m1",
  fable: "en+f3",
  nova: "en-us+f5",
  onyx: "en-us+m7",
  sage: "en-us+f1",
  shimmer: "en-us+f3",
  verse: "en+m4",
  marin: "en-us+Annie",
  cedar: "en-us+Andy",
};

/** espeak's natural rate (words per minute) at speed 1, and the range it accepts. */
export const BASE_WPM = 175;
export const MIN_WPM = 80;
export const MAX_WPM = 450;

let engine: Promise<ESpeakNGWorker> | null = null;

/** The shared engine; initialised once (the first call pays for loading the voice data). */
export function espeakEngine(): Promise<ESpeakNGWorker> {
  engine ??= import("@echogarden/espeak-ng-emscripten")
    .then((m) => m.default())
    .then((mod) => new mod.eSpeakNGWorker())
    .catch((err: Error) => {
      engine = null;
      throw err;
    });
  return engine;
}

/** Splits text into sentence-sized pieces (at most ~400 characters, cut at whitespace). */
export function sentences(text: string): string[] {
  const parts = text.split(/(?<=[.!?;:\n])\s+/).filter((s) => s.trim());
  const out: string[] = [];
  for (const part of parts) {
    let rest = part;
    while (rest.length > 400) {
      const cut = rest.lastIndexOf(" ", 400);
      const at = cut > 100 ? cut : 400;
      out.push(rest.slice(0, at));
      rest = rest.slice(at).trimStart();
    }
    if (rest.trim()) out.push(rest);
  }
  return out;
}

export type SynthOptions = { voice: string; wpm: number; signal?: AbortSignal };

/**
 * Synthesises `text` and hands each sentence's 16-bit mono PCM (at `sampleRate`) to `sink`,
 * awaiting it (backpressure) before the next sentence. Stops early when the signal aborts.
 */
export async function synthesize(text: string, options: SynthOptions, sink: (pcm: Buffer) => Promise<void>): Promise<{ sampleRate: number }> {
  const worker = await espeakEngine();
  const sampleRate = worker.get_samplerate();
  for (const piece of sentences(text)) {
    if (options.signal?.aborted) break;
    worker.set_voice(VOICES[options.voice] ?? "en-us");
    worker.set_rate(Math.round(options.wpm));
    const chunks: Buffer[] = [];
    worker.synthesize(piece, (samples) => {
      chunks.push(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
      return false;
    });
    const pcm = Buffer.concat(chunks);
    if (pcm.length) await sink(pcm);
    await tick();
  }
  return { sampleRate };
}
