// POST /v1/audio/speech: real speech from espeak-ng, encoded by ffmpeg into the requested format
// and streamed to the client as ffmpeg produces it (chunked transfer, no content-length).
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { BASE_WPM, MAX_WPM, MIN_WPM, VOICES, espeakEngine, synthesize } from "./espeak";
import { startFfmpeg } from "./ffmpeg";
import { ApiError, clientGone, readJson } from "./http";
import { requireModel } from "./models";
import { parseRequest } from "./validate";

export const MAX_SPEECH_CHARS = 4096;
/** OpenAI's output rate: every format (and raw pcm) is 24 kHz mono. */
export const OUTPUT_RATE = 24000;

/** ffmpeg output arguments and content type per response_format. */
export const SPEECH_FORMATS = {
  mp3: { type: "audio/mpeg", args: ["-c:a", "libmp3lame", "-b:a", "64k", "-f", "mp3"] },
  opus: { type: "audio/ogg", args: ["-c:a", "libopus", "-b:a", "32k", "-f", "ogg"] },
  aac: { type: "audio/aac", args: ["-c:a", "aac", "-b:a", "64k", "-f", "adts"] },
  flac: { type: "audio/flac", args: ["-c:a", "flac", "-f", "flac"] },
  wav: { type: "audio/wav", args: ["-c:a", "pcm_s16le", "-f", "wav"] },
  pcm: { type: "audio/pcm", args: ["-c:a", "pcm_s16le", "-f", "s16le"] },
} as const;

const SpeechRequest = z.looseObject({
  model: z.string(),
  input: z.string().min(1, "must not be empty").max(MAX_SPEECH_CHARS, `must be at most ${MAX_SPEECH_CHARS} characters`),
  voice: z.string().refine((v) => v in VOICES, { message: `unknown voice; use one of ${Object.keys(VOICES).join(", ")}` }),
  response_format: z.enum(Object.keys(SPEECH_FORMATS) as [keyof typeof SPEECH_FORMATS]).nullish(),
  speed: z.number().min(0.25).max(4).nullish(),
  instructions: z.string().nullish(),
  stream_format: z.enum(["audio"]).nullish(),
});

/** espeak's rate for `speed`, plus the atempo factors ffmpeg applies for what espeak cannot reach. */
export function tempoPlan(speed: number): { wpm: number; atempo: number[] } {
  const wanted = BASE_WPM * speed;
  const wpm = Math.min(MAX_WPM, Math.max(MIN_WPM, wanted));
  let rest = wanted / wpm;
  const atempo: number[] = [];
  while (rest > 2.0001) (atempo.push(2), (rest /= 2));
  while (rest < 0.4999) (atempo.push(0.5), (rest /= 0.5));
  if (Math.abs(rest - 1) > 1e-3) atempo.push(Number(rest.toFixed(4)));
  return { wpm, atempo };
}

export async function speech(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  requireModel(body, "speech", "v1/audio/speech");
  const request = parseRequest(SpeechRequest, body);
  const format = SPEECH_FORMATS[request.response_format ?? "mp3"];
  const { wpm, atempo } = tempoPlan(request.speed ?? 1);
  const inputRate = (await espeakEngine()).get_samplerate();
  const filters = [...atempo.map((f) => `atempo=${f}`), `aresample=${OUTPUT_RATE}`].join(",");
  const ffmpeg = startFfmpeg(["-f", "s16le", "-ar", String(inputRate), "-ac", "1", "-i", "pipe:0", "-af", filters, "-ar", String(OUTPUT_RATE), "-ac", "1", ...format.args, "pipe:1"]);
  const signal = clientGone(res);
  signal.addEventListener("abort", () => ffmpeg.kill("SIGKILL"));
  let stderr = "";
  ffmpeg.stderr.on("data", (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  ffmpeg.stdin.on("error", () => {}); // ffmpeg gone (killed or failed): its exit code reports it
  ffmpeg.stdout.on("data", (chunk: Buffer) => {
    if (!res.headersSent) res.writeHead(200, { "content-type": format.type, "transfer-encoding": "chunked", "cache-control": "no-store" });
    if (!res.write(chunk)) {
      ffmpeg.stdout.pause();
      res.once("drain", () => ffmpeg.stdout.resume());
    }
  });
  const exited = new Promise<number>((resolve) => ffmpeg.once("close", (code) => resolve(code ?? 1)));
  const write = (pcm: Buffer) =>
    new Promise<void>((resolve) => {
      if (ffmpeg.stdin.destroyed || ffmpeg.stdin.write(pcm)) return resolve();
      // Whichever comes first takes the other listener off: left on, every wait on a long text
      // would add a "close" listener to ffmpeg's stdin.
      const done = () => {
        ffmpeg.stdin.off("drain", done).off("close", done);
        resolve();
      };
      ffmpeg.stdin.once("drain", done).once("close", done);
    });
  try {
    await synthesize(request.input, { voice: request.voice, wpm, signal }, write);
  } finally {
    ffmpeg.stdin.end();
  }
  const code = await exited;
  if (signal.aborted) return;
  if (code !== 0) {
    if (res.headersSent) return void res.destroy(new Error(`ffmpeg failed: ${stderr}`));
    throw new ApiError(500, "audio_encoding_failed", `Encoding the audio failed: ${stderr.trim() || `exit ${code}`}`);
  }
  if (!res.headersSent) res.writeHead(200, { "content-type": format.type, "transfer-encoding": "chunked" });
  res.end();
}
