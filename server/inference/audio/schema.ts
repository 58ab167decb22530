// The audio API (part 2.10 of the API reference): speech, transcription and translation requests,
// and the transcript the last two answer with (speech answers audio bytes).
import { z } from "zod";
import { ZUpload } from "../../infra/storage/upload";

export const SPEECH_FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"] as const;
export const TRANSCRIPT_FORMATS = ["json", "text", "srt", "verbose_json", "vtt"] as const;

/** POST /v1/audio/speech (JSON). Fields the gateway does not know are passed to the node. */
export const ZSpeechRequest = z.looseObject({
  model: z.string().min(1),
  input: z.string().min(1, "must not be empty").max(4096, "must be at most 4096 characters"),
  voice: z.string().min(1),
  response_format: z.enum(SPEECH_FORMATS).default("mp3"),
  speed: z.number().min(0.25).max(4).optional(),
  instructions: z.string().max(4096).optional(),
});
export type SpeechRequest = z.infer<typeof ZSpeechRequest>;

/** Form fields arrive as strings: numbers are coerced, as OpenAI does. */
const formNumber = (min: number, max: number) => z.coerce.number().min(min).max(max);

const common = {
  file: ZUpload,
  model: z.string().min(1),
  prompt: z.string().optional(),
  temperature: formNumber(0, 1).optional(),
  /** Unset: the full result (text, language, duration, segments), as `verbose_json`; `json` is OpenAI's `{text}`. */
  response_format: z.enum(TRANSCRIPT_FORMATS).optional(),
};

/** POST /v1/audio/transcriptions (multipart). */
export const ZTranscriptionRequest = z.object({
  ...common,
  language: z.string().min(2).max(16).optional(),
  timestamp_granularities: z
    .preprocess((v) => (typeof v === "string" ? [v] : v), z.array(z.enum(["word", "segment"])).min(1))
    .optional(),
});
export type TranscriptionRequest = z.infer<typeof ZTranscriptionRequest>;

/** POST /v1/audio/translations (multipart): into English, so no language. */
export const ZTranslationRequest = z.object(common);
export type TranslationRequest = z.infer<typeof ZTranslationRequest>;

// ---- The answer ----

const ZSegment = z.looseObject({
  id: z.number().int(),
  start: z.number(),
  end: z.number(),
  text: z.string(),
  seek: z.number().int(),
  tokens: z.array(z.number().int()),
  temperature: z.number(),
  avg_logprob: z.number(),
  compression_ratio: z.number(),
  no_speech_prob: z.number(),
});

/**
 * A transcript (transcriptions and translations): `response_format: verbose_json` (and no format
 * named) gives task, language, duration and segments (and the node's words); `json` the node's
 * object, at least `text`. `text`, `srt` and `vtt` are answered as text, not JSON.
 */
export const ZTranscription = z.union([
  z.looseObject({
    task: z.enum(["transcribe", "translate"]),
    language: z.string(),
    duration: z.number().describe("Seconds of audio"),
    text: z.string(),
    segments: z.array(ZSegment),
    words: z.array(z.looseObject({ word: z.string(), start: z.number(), end: z.number() })).optional(),
  }),
  z.looseObject({ text: z.string() }),
]);
