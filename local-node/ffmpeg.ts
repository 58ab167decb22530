// The ffmpeg and ffprobe binaries shipped in npm packages, and small helpers to run them on
// buffers. Nothing here touches the network; inputs go through stdin or a private temp file.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const require = createRequire(import.meta.url);
export const FFMPEG: string = (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
export const FFPROBE: string = (require("@ffprobe-installer/ffprobe") as { path: string }).path;

/** Starts ffmpeg with `args` (quiet, no stdin prompts); the caller owns its pipes. */
export function startFfmpeg(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(FFMPEG, ["-hide_banner", "-loglevel", "error", "-nostdin", ...args], { stdio: "pipe" });
}

export type RunResult = { code: number; stdout: Buffer; stderr: string };

/** Runs a binary to completion, feeding `input` to stdin when given. */
export function run(bin: string, args: string[], input?: Buffer): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: [input ? "pipe" : "ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr }));
    if (input) {
      child.stdin!.on("error", () => {}); // the tool may stop reading early (EPIPE): its exit code tells
      child.stdin!.end(input);
    }
  });
}

/** Writes `data` to a private temp file for the duration of `use` (containers such as mp4 need seeking). */
export async function withTempFile<T>(data: Buffer, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "local-node-"));
  const path = join(dir, "input");
  try {
    await writeFile(path, data);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export type DecodedAudio = { duration: number; samples: Int16Array; sampleRate: number; container: string };

export const DECODE_RATE = 16000;

/**
 * Decodes the first audio stream of `data` to 16 kHz mono PCM and measures it: the duration is the
 * number of decoded samples over the rate, not a header field. Null when it is not decodable audio.
 */
export async function decodeAudio(data: Buffer): Promise<DecodedAudio | null> {
  return withTempFile(data, async (path) => {
    const probe = await run(FFPROBE, ["-v", "error", "-show_entries", "format=format_name:stream=codec_type", "-of", "json", path]);
    if (probe.code !== 0) return null;
    let info: { format?: { format_name?: string }; streams?: { codec_type?: string }[] };
    try {
      info = JSON.parse(probe.stdout.toString("utf8"));
    } catch {
      return null;
    }
    if (!info.streams?.some((s) => s.codec_type === "audio")) return null;
    const pcm = await run(FFMPEG, ["-hide_banner", "-loglevel", "error", "-nostdin", "-i", path, "-map", "0:a:0", "-vn", "-ac", "1", "-ar", String(DECODE_RATE), "-f", "s16le", "pipe:1"]);
    if (pcm.code !== 0 || pcm.stdout.length < 2) return null;
    const bytes = pcm.stdout;
    const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.length & ~1)));
    return { duration: samples.length / DECODE_RATE, samples, sampleRate: DECODE_RATE, container: info.format?.format_name ?? "unknown" };
  });
}
