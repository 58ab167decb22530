// The render behind local-video: a real H.264 mp4 made by the ffmpeg of @ffmpeg-installer/ffmpeg,
// the prompt's text over a moving test pattern, at exactly the requested size, fps and duration.
// Progress comes from ffmpeg's `-progress pipe:1` lines; the duration billed is measured by ffprobe.
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { FFPROBE, run, startFfmpeg } from "./ffmpeg";

export type RenderSpec = { prompt: string; width: number; height: number; fps: number; seconds: number; slow: boolean };

/** Minimum wall-clock length of a render under [sim:slow] (ms). */
export const SLOW_RENDER_MS = 3000;

const FONTS = [
  "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
  "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
  "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
  "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf",
  "/usr/share/fonts/TTF/DejaVuSans.ttf",
];
/** A TTF font for drawtext; null when none is installed (the text is then drawn by sharp). */
export const FONT_FILE: string | null = FONTS.find((f) => existsSync(f)) ?? null;

/** The prompt cut into at most 4 lines that fit the frame. */
export function wrapText(text: string, width: number, fontSize: number): string[] {
  const perLine = Math.max(8, Math.floor((width * 0.9) / (fontSize * 0.62)));
  const lines: string[] = [];
  let line = "";
  for (const word of text.replace(/\s+/g, " ").trim().split(" ")) {
    const piece = word.length > perLine ? word.slice(0, perLine) : word;
    if (line && line.length + 1 + piece.length > perLine) {
      lines.push(line);
      line = piece;
    } else line = line ? `${line} ${piece}` : piece;
  }
  if (line) lines.push(line);
  if (lines.length > 4) lines.splice(3, lines.length - 3, `${lines[3]!.slice(0, perLine - 1)}…`);
  return lines.length ? lines : [" "];
}

const quote = (path: string) => `'${path.replace(/'/g, "'\\''")}'`;
const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** ffmpeg arguments; writes the text (or its overlay image) into `dir`. */
async function buildArgs(spec: RenderSpec, dir: string, out: string): Promise<string[]> {
  const { width: w, height: h, fps, seconds } = spec;
  const fontSize = Math.max(10, Math.round(h / 14));
  const lines = wrapText(spec.prompt, w, fontSize);
  const source = ["-f", "lavfi", "-i", `testsrc2=size=${w}x${h}:rate=${fps}:duration=${seconds}`];
  // [sim:slow]: pace the frames in real time, time stretched so the render lasts >= SLOW_RENDER_MS
  const k = Math.max(1, SLOW_RENDER_MS / 1000 / seconds);
  const pace = spec.slow ? `,setpts=PTS*${k},realtime=limit=10,setpts=PTS/${k}` : "";
  const bob = `${Math.round(h / 10)}*sin(2*PI*t/${seconds})`;
  let graph: string;
  const inputs = [...source];
  if (FONT_FILE) {
    const textFile = join(dir, "prompt.txt");
    await writeFile(textFile, lines.join("\n"));
    const draw = `drawtext=fontfile=${quote(FONT_FILE)}:textfile=${quote(textFile)}:expansion=none:fontsize=${fontSize}:fontcolor=white:line_spacing=${Math.round(fontSize / 4)}:box=1:boxcolor=black@0.55:boxborderw=${Math.round(fontSize / 3)}:x=(w-text_w)/2:y=(h-text_h)/2+${bob}`;
    graph = `[0:v]${draw}${pace}[v]`;
  } else {
    const overlay = join(dir, "prompt.png");
    const tspans = lines.map((l, i) => `<tspan x="50%" dy="${i ? 1.25 : 0}em">${xml(l)}</tspan>`).join("");
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${Math.round(fontSize * 1.3 * lines.length + fontSize)}"><rect width="100%" height="100%" fill="black" fill-opacity="0.55"/><text x="50%" y="${fontSize * 1.2}" font-size="${fontSize}" font-family="sans-serif" fill="white" text-anchor="middle">${tspans}</text></svg>`;
    await sharp(Buffer.from(svg)).png().toFile(overlay);
    inputs.push("-i", overlay);
    graph = `[0:v][1:v]overlay=x=0:y=(H-h)/2+${bob}${pace}[v]`;
  }
  return [
    ...inputs,
    "-filter_complex", graph, "-map", "[v]",
    "-r", String(fps), "-t", String(seconds),
    "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-movflags", "+faststart",
    "-progress", "pipe:1", "-nostats", "-y", out,
  ];
}

/**
 * Renders `spec` into `out`. `onProgress` gets 0-99 from ffmpeg's progress lines: the output time
 * (`out_time_us`, or `out_time_ms`, also in microseconds) against the duration, and the frames
 * encoded (`frame=`) against fps x seconds, since x264's lookahead holds the first packets back and
 * leaves out_time at 0 for a while. Rejects when ffmpeg fails or `signal` aborts.
 */
export async function renderVideo(spec: RenderSpec, dir: string, out: string, onProgress: (pct: number) => void, signal: AbortSignal): Promise<void> {
  const child = startFfmpeg(await buildArgs(spec, dir, out));
  const kill = () => child.kill("SIGKILL");
  signal.addEventListener("abort", kill, { once: true });
  let stderr = "";
  let pending = "";
  child.stderr.on("data", (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  child.stdout.on("data", (c: Buffer) => {
    const lines = (pending + c.toString()).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const time = /^out_time_(?:us|ms)=(\d+)/.exec(line.trim());
      const frame = /^frame=(\d+)/.exec(line.trim());
      const done = time ? Number(time[1]) / 1e6 / spec.seconds : frame ? Number(frame[1]) / (spec.fps * spec.seconds) : NaN;
      if (Number.isFinite(done)) onProgress(Math.max(0, Math.min(99, Math.floor(done * 100))));
    }
  });
  const code = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (c) => resolve(c ?? 1));
  }).finally(() => signal.removeEventListener("abort", kill));
  if (signal.aborted) throw new Error("render cancelled");
  if (code !== 0) throw new Error(`ffmpeg exited with ${code}: ${stderr.trim().split("\n").pop() ?? ""}`);
}

/** The container duration of `path` in seconds, measured by ffprobe, rounded to 3 decimals. */
export async function probeDuration(path: string): Promise<number> {
  const r = await run(FFPROBE, ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", path]);
  const seconds = Number(r.stdout.toString().trim());
  if (r.code !== 0 || !Number.isFinite(seconds)) throw new Error(`ffprobe could not measure the video: ${r.stderr.trim()}`);
  return Math.round(seconds * 1000) / 1000;
}
