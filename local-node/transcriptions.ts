// POST /v1/audio/transcriptions and /v1/audio/translations (model local-stt). The upload is
// parsed as a stream (25 MB limit), decoded with ffmpeg to measure its real duration; the text
// is recognised by PocketSphinx where installed, else simulated (transcript.ts, docs/LOCAL-NODE.md).
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { decodeAudio } from "./ffmpeg";
import { ApiError, send } from "./http";
import { requireModel } from "./models";
import { filesOf, readMultipart } from "./multipart";
import { toSrt, toVtt } from "./subtitles";
import { recognize } from "./recognizer";
import { transcribe } from "./transcript";
import { numberField, parseRequest } from "./validate";

export type Task = "transcribe" | "translate";

const Form = z.looseObject({
  model: z.string(),
  language: z.string().max(64).optional(),
  prompt: z.string().optional(),
  temperature: numberField(z.number().min(0).max(1)).optional(),
  response_format: z.enum(["json", "text", "srt", "verbose_json", "vtt"]).optional(),
  timestamp_granularities: z.array(z.enum(["word", "segment"])).optional(),
});

function sendText(res: ServerResponse, type: string, text: string): void {
  res.writeHead(200, { "content-type": `${type}; charset=utf-8`, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export async function transcriptions(req: IncomingMessage, res: ServerResponse, task: Task): Promise<void> {
  const form = await readMultipart(req);
  const fields = { ...form.fields } as Record<string, unknown>;
  if (typeof fields.timestamp_granularities === "string") fields.timestamp_granularities = [fields.timestamp_granularities];
  requireModel(fields, "transcription", `v1/audio/${task === "translate" ? "translations" : "transcriptions"}`);
  const request = parseRequest(Form, fields);
  const file = filesOf(form, "file")[0];
  if (!file) throw new ApiError(400, "missing_required_parameter", "Missing required parameter: 'file'.", "file");
  if (!file.data.length) throw new ApiError(400, "invalid_file", "The uploaded file is empty.", "file");
  const audio = await decodeAudio(file.data);
  if (!audio) throw new ApiError(400, "invalid_file", "The audio file could not be decoded or its format is not supported.", "file");

  const temperature = request.temperature ?? 0;
  const result = transcribe(file.data, audio, `${task}\0${request.prompt ?? ""}`, temperature, await recognize(audio));
  const format = request.response_format ?? "json";
  const usage = { type: "duration", seconds: Math.ceil(result.duration) };
  if (format === "text") return sendText(res, "text/plain", `${result.text}\n`);
  if (format === "srt") return sendText(res, "text/plain", toSrt(result.segments));
  if (format === "vtt") return sendText(res, "text/vtt", toVtt(result.segments));
  if (format === "json") return send(res, 200, { text: result.text, usage });
  const granularities = request.timestamp_granularities ?? ["segment"];
  send(res, 200, {
    task,
    language: task === "translate" ? "english" : (request.language ?? "english"),
    duration: Number(result.duration.toFixed(3)),
    text: result.text,
    ...(granularities.includes("word") ? { words: result.words } : {}),
    segments: result.segments,
    usage,
  });
}
