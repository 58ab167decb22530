// The real duration of an uploaded audio file, decoded by ffprobe (a static binary from npm),
// never taken from the client or the node.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

// A server-external package (next.config.mjs): loaded from node_modules, where its binary is.
// Loaded on first use: only uploaded audio needs it.
let ffprobePath: string | undefined;
async function ffprobe(): Promise<string> {
  ffprobePath ??= (await import("@ffprobe-installer/ffprobe")).default.path;
  return ffprobePath;
}

async function run(args: string[]): Promise<string | null> {
  const bin = await ffprobe();
  return new Promise((resolve) => {
    execFile(bin, args, { timeout: 20_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout) => resolve(err ? null : stdout));
  });
}

export type Probe = { formats: string[]; seconds: string };

const positive = (s: unknown): s is string => typeof s === "string" && /^\d+(\.\d+)?$/.test(s) && Number(s) > 0;

/** Duration from the packets themselves, for containers that do not declare one (e.g. browser webm). */
async function packetDuration(file: string): Promise<string | null> {
  const out = await run(["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", file]);
  if (!out) return null;
  let end = 0;
  for (const line of out.split("\n")) {
    const [pts, dur] = line.split(",").map(Number);
    if (Number.isFinite(pts)) end = Math.max(end, pts! + (Number.isFinite(dur) ? dur! : 0));
  }
  return end > 0 ? end.toFixed(6) : null;
}

/** What ffprobe finds in `data`, or null when it cannot decode an audio stream from it. */
export async function probeAudio(data: Uint8Array): Promise<Probe | null> {
  const file = path.join(tmpdir(), `gateway-audio-${randomBytes(8).toString("hex")}`);
  await writeFile(file, data);
  try {
    const out = await run(["-v", "error", "-show_entries", "format=format_name,duration:stream=codec_type,duration", "-of", "json", file]);
    if (!out) return null;
    const info = JSON.parse(out) as { format?: { format_name?: string; duration?: string }; streams?: { codec_type?: string; duration?: string }[] };
    const audio = info.streams?.find((s) => s.codec_type === "audio");
    if (!audio || !info.format?.format_name) return null;
    // Billed on the packets actually in the file: a header's declared duration is the client's
    // claim (and can be made small on purpose), so it is only a fallback.
    const seconds = (await packetDuration(file)) ?? [audio.duration, info.format.duration].find(positive);
    if (!seconds) return null;
    return { formats: info.format.format_name.split(","), seconds };
  } catch {
    return null;
  } finally {
    await rm(file, { force: true });
  }
}
