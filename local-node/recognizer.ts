// Real offline speech recognition with CMU PocketSphinx and its US-English model, from Debian's
// `pocketsphinx` and `pocketsphinx-en-us` packages (.ci/run installs them). Where they are not
// installed, recognize() answers null and the transcript text is simulated (transcript.ts).
import { existsSync } from "node:fs";
import type { DecodedAudio } from "./ffmpeg";
import { DECODE_RATE, run, withTempFile } from "./ffmpeg";

export type RecognizedWord = { word: string; start: number; end: number; utterance: number };

const BINARY = ["/usr/bin/pocketsphinx_continuous", "/usr/local/bin/pocketsphinx_continuous"].find((p) => existsSync(p));

export const recognizerAvailable = (): boolean => BINARY !== undefined;

/** A 16 kHz mono 16-bit WAV file of the decoded samples: what PocketSphinx reads. */
function wav(audio: DecodedAudio): Buffer {
  const data = Buffer.from(audio.samples.buffer, audio.samples.byteOffset, audio.samples.byteLength);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(DECODE_RATE, 24);
  header.writeUInt32LE(DECODE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

const FILLER = /^(<s>|<\/s>|<sil>|\[.*\]|\+\+.*\+\+)$/;

/** Words with their times (seconds); `utterance` numbers the pauses PocketSphinx found. */
export async function recognize(audio: DecodedAudio): Promise<RecognizedWord[] | null> {
  if (!BINARY || audio.sampleRate !== DECODE_RATE) return null;
  const out = await withTempFile(wav(audio), (file) => run(BINARY, ["-infile", file, "-time", "yes", "-logfn", "/dev/null"]));
  if (out.code !== 0) return null;
  const words: RecognizedWord[] = [];
  let utterance = -1;
  for (const line of out.stdout.toString("utf8").split("\n")) {
    const parts = line.trim().split(/\s+/);
    const timed = parts.length === 4 && parts.slice(1).every((p) => /^-?\d+(\.\d+)?$/.test(p));
    if (!timed) {
      if (line.trim()) utterance++;
      continue;
    }
    const word = parts[0]!.replace(/\(\d+\)$/, "");
    if (FILLER.test(word)) continue;
    words.push({ word, start: Number(parts[1]), end: Number(parts[2]), utterance: Math.max(0, utterance) });
  }
  return words;
}
