// The built-in node's audio endpoints over real HTTP with the official SDK: speech synthesised by
// espeak-ng (WASM) and encoded by ffmpeg in every format, and transcription/translation of that
// speech (real decoded duration, simulated text). Starts its own node; no gateway.
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FFPROBE, run, withTempFile } from "../../local-node/ffmpeg";
import { node, openai, useLocalNode, apiError } from "../local-node-fixture";
import { recognizerAvailable } from "../../local-node/recognizer";

const SENTENCE = "The quick brown fox jumps over the lazy dog. Speech from the local node is real.";

useLocalNode();

async function speak(input: string, response_format: "mp3" | "opus" | "aac" | "flac" | "wav" | "pcm" = "wav", extra: { speed?: number; voice?: string } = {}) {
  const r = await openai.audio.speech.create({ model: "local-tts", voice: extra.voice ?? "alloy", input, response_format, speed: extra.speed });
  return { type: r.headers.get("content-type"), chunked: r.headers.get("transfer-encoding"), length: r.headers.get("content-length"), bytes: Buffer.from(await r.arrayBuffer()) };
}

/** The duration ffprobe reads from the packets (streamed flac and wav headers carry no total). */
async function probeDuration(bytes: Buffer): Promise<number> {
  return withTempFile(bytes, async (path) => {
    const r = await run(FFPROBE, ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", path]);
    const ends = r.stdout.toString().trim().split("\n").map((line) => line.split(",").map(Number).reduce((a, b) => a + b, 0));
    return Math.max(...ends);
  });
}

describe("local node speech", () => {
  it("answers every format with its magic bytes and content type, chunked", async () => {
    const expected = { mp3: "audio/mpeg", opus: "audio/ogg", aac: "audio/aac", flac: "audio/flac", wav: "audio/wav", pcm: "audio/pcm" } as const;
    const out: Record<string, Buffer> = {};
    for (const [format, type] of Object.entries(expected)) {
      const r = await speak(SENTENCE, format as keyof typeof expected);
      expect(r.type).toBe(type);
      expect(r.chunked).toBe("chunked");
      expect(r.length).toBeNull();
      out[format] = r.bytes;
    }
    const mp3 = out.mp3!;
    expect(mp3.subarray(0, 3).toString("latin1") === "ID3" || (mp3[0] === 0xff && (mp3[1]! & 0xe0) === 0xe0)).toBe(true);
    expect(out.opus!.subarray(0, 4).toString("latin1")).toBe("OggS");
    expect(out.opus!.includes(Buffer.from("OpusHead"))).toBe(true);
    expect(out.aac![0]).toBe(0xff);
    expect(out.aac![1]! & 0xf0).toBe(0xf0);
    expect(out.flac!.subarray(0, 4).toString("latin1")).toBe("fLaC");
    expect(out.wav!.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(out.wav!.subarray(8, 12).toString("latin1")).toBe("WAVE");
    // pcm: raw 24 kHz 16-bit mono, as long as the wav's audio
    const wavSeconds = await probeDuration(out.wav!);
    expect(out.pcm!.length % 2).toBe(0);
    expect(out.pcm!.length / 48000).toBeCloseTo(wavSeconds, 1);
    for (const format of ["mp3", "opus", "aac", "flac"]) expect(Math.abs((await probeDuration(out[format]!)) - wavSeconds)).toBeLessThan(0.15);
    expect(wavSeconds).toBeGreaterThan(3);
  });

  it("longer input gives longer audio; speed shortens it; voices differ", async () => {
    const short = await probeDuration((await speak("Hello there.", "mp3")).bytes);
    const long = await probeDuration((await speak(`${SENTENCE} ${SENTENCE} ${SENTENCE}`, "mp3")).bytes);
    expect(long).toBeGreaterThan(short * 3);
    const normal = await probeDuration((await speak(SENTENCE)).bytes);
    const fast = await probeDuration((await speak(SENTENCE, "wav", { speed: 2 })).bytes);
    const slow = await probeDuration((await speak(SENTENCE, "wav", { speed: 0.5 })).bytes);
    expect(fast).toBeLessThan(normal * 0.65);
    expect(slow).toBeGreaterThan(normal * 1.6);
    const a = (await speak("Same words.", "pcm", { voice: "alloy" })).bytes;
    const b = (await speak("Same words.", "pcm", { voice: "onyx" })).bytes;
    expect(a.equals(b)).toBe(false);
    // espeak's noise generator keeps state, so samples vary slightly between calls; timing does not
    expect((await speak("Same words.", "pcm", { voice: "alloy" })).bytes.length).toBe(a.length);
  });

  it("streams: the first audio arrives long before a long input is fully synthesised", async () => {
    const started = performance.now();
    const r = await openai.audio.speech.create({ model: "local-tts", voice: "nova", input: `${SENTENCE} `.repeat(48).trim(), response_format: "mp3" });
    const reader = r.body!.getReader();
    let first = 0;
    let chunks = 0;
    let bytes = 0;
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      if (!chunks) first = performance.now() - started;
      chunks++;
      bytes += part.value.length;
    }
    const total = performance.now() - started;
    expect(chunks).toBeGreaterThan(3);
    expect(first).toBeLessThan(total / 2);
    expect(bytes).toBeGreaterThan(100_000);
  });

  it("rejects bad fields with OpenAI errors naming the param", async () => {
    const create = (body: Record<string, unknown>) => apiError(openai.audio.speech.create({ model: "local-tts", voice: "alloy", input: "Hi", ...body } as never));
    expect(await create({ voice: "bob" })).toMatchObject({ status: 400, param: "voice" });
    expect(await create({ input: "" })).toMatchObject({ status: 400, param: "input" });
    expect(await create({ input: "a".repeat(4097) })).toMatchObject({ status: 400, param: "input" });
    expect(await create({ speed: 4.5 })).toMatchObject({ status: 400, param: "speed" });
    expect(await create({ response_format: "ogg" })).toMatchObject({ status: 400, param: "response_format" });
    expect(await create({ model: "nope" })).toMatchObject({ status: 404, code: "model_not_found", param: "model" });
    expect(await create({ model: "local-stt" })).toMatchObject({ status: 404, code: "model_not_found" });
    expect(await create({ voice: undefined })).toMatchObject({ status: 400, code: "missing_required_parameter", param: "voice" });
  });
});

// Each transcription is a real decode by PocketSphinx when it is installed: seconds each alone, and
// three times as long while the rest of the suite shares the 2 cores.
describe("local node transcription and translation", { timeout: 120_000 }, () => {
  let wav: Buffer;
  let seconds: number;
  beforeAll(async () => {
    wav = (await speak(`${SENTENCE} ${SENTENCE}`, "wav")).bytes;
    seconds = await probeDuration(wav);
  });
  const file = (bytes: Buffer, name = "speech.wav") => toFile(bytes, name);

  it("verbose_json carries the real duration, segments and words", async () => {
    const r = await openai.audio.transcriptions.create({ file: await file(wav), model: "local-stt", response_format: "verbose_json", timestamp_granularities: ["word", "segment"], language: "en" });
    expect(r.duration).toBeGreaterThan(5);
    expect(Math.abs(r.duration - seconds)).toBeLessThan(0.05);
    expect(r).toMatchObject({ task: "transcribe", language: "en" });
    expect(r.text.length).toBeGreaterThan(10);
    const segments = r.segments!;
    expect(segments.length).toBeGreaterThan(0);
    for (const s of segments) {
      expect(Object.keys(s).sort()).toEqual(["avg_logprob", "compression_ratio", "end", "id", "no_speech_prob", "seek", "start", "temperature", "text", "tokens"]);
      expect(s.end).toBeGreaterThan(s.start);
      expect(s.end).toBeLessThanOrEqual(r.duration + 0.01);
      expect(s.tokens.length).toBeGreaterThan(0);
    }
    expect(segments.map((s) => s.text).join("").trim()).toBe(r.text);
    // deterministic for the same bytes
    const again = await openai.audio.transcriptions.create({ file: await file(wav), model: "local-stt" });
    expect(again.text).toBe(r.text);
    const prompted = await openai.audio.transcriptions.create({ file: await file(wav), model: "local-stt", prompt: "Glossary: fox, dog." });
    if (recognizerAvailable()) {
      // real recognition (PocketSphinx): the words come from the audio, the prompt changes nothing
      expect(prompted.text).toBe(r.text);
      expect(r.words!.every((w) => /^[a-z']+$/.test(w.word))).toBe(true);
      expect(r.words!.length).toBeGreaterThan(seconds); // speech, at more than a word a second
    } else {
      // simulated text (documented): seeded by the bytes and the prompt, at 2.2-2.8 words a second
      expect(prompted.text).not.toBe(r.text);
      expect(r.words!.length).toBeGreaterThan(seconds * 1.5);
      expect(r.words!.length).toBeLessThan(seconds * 3.5);
    }
  });

  it("answers json, text, srt and vtt; decodes mp3 uploads too", async () => {
    const json = await openai.audio.transcriptions.create({ file: await file(wav), model: "local-stt", response_format: "json" });
    expect(typeof json.text).toBe("string");
    const text = await openai.audio.transcriptions.create({ file: await file(wav), model: "local-stt", response_format: "text" });
    expect(String(text).trim()).toBe(json.text);
    const srt = String(await openai.audio.transcriptions.create({ file: await file(wav), model: "local-stt", response_format: "srt" }));
    expect(srt).toMatch(/^1\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\n\S/);
    const vtt = String(await openai.audio.transcriptions.create({ file: await file(wav), model: "local-stt", response_format: "vtt" }));
    expect(vtt).toMatch(/^WEBVTT\n\n00:00:\d\d\.\d{3} --> 00:00:\d\d\.\d{3}\n\S/);
    const mp3 = (await speak(SENTENCE, "mp3")).bytes;
    const r = await openai.audio.transcriptions.create({ file: await file(mp3, "speech.mp3"), model: "local-stt", response_format: "verbose_json" });
    expect(Math.abs(r.duration - (await probeDuration(mp3)))).toBeLessThan(0.1);
  });

  it("translates into English with task translate", async () => {
    const r = (await openai.audio.translations.create({ file: await file(wav), model: "local-stt", response_format: "verbose_json" })) as unknown as { task: string; language: string; duration: number };
    expect(r).toMatchObject({ task: "translate", language: "english" });
    expect(Math.abs(r.duration - seconds)).toBeLessThan(0.05);
    const plain = await openai.audio.translations.create({ file: await file(wav), model: "local-stt" });
    expect(plain.text.length).toBeGreaterThan(0);
  });

  it("rejects corrupt, missing and oversized files", async () => {
    const corrupt = await apiError(openai.audio.transcriptions.create({ file: await file(Buffer.from("RIFF1234WAVEnot really audio"), "x.wav"), model: "local-stt" }));
    expect(corrupt).toMatchObject({ status: 400, code: "invalid_file", param: "file" });
    expect(await apiError(openai.audio.translations.create({ file: await file(wav), model: "local-tts" }))).toMatchObject({ status: 404, code: "model_not_found" });
    const form = new FormData();
    form.append("model", "local-stt");
    const missing = await fetch(`${node.url}/v1/audio/transcriptions`, { method: "POST", body: form });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.param).toBe("file");
    const big = new FormData();
    big.append("model", "local-stt");
    big.append("file", new Blob([Buffer.alloc(26 * 1024 * 1024)]), "big.wav");
    const tooBig = await fetch(`${node.url}/v1/audio/transcriptions`, { method: "POST", body: big });
    expect(tooBig.status).toBe(413);
    expect((await tooBig.json()).error.param).toBe("file");
  });
});
