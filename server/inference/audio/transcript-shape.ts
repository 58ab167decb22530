// The node's transcript in OpenAI's shapes: `json` {text}, `verbose_json` (also the answer when no
// format is named) {task, language, duration, text, segments[], words[]?}, and text for `text`,
// `srt` and `vtt`. A node answer
// that is not of the asked shape is an upstream failure (502), and is not billed.
import { upstreamError } from "../../routing/nodes/router";
import { UpstreamFailure } from "../../providers/upstream-failure";
import type { TranscriptionRequest } from "./schema";

const unreadable = () => upstreamError(new UpstreamFailure("protocol", "the node sent an unreadable transcript", 502));

const SEGMENT_DEFAULTS = { seek: 0, tokens: [] as number[], temperature: 0, avg_logprob: 0, compression_ratio: 0, no_speech_prob: 0 };

export function shapeTranscript(
  body: string,
  format: NonNullable<TranscriptionRequest["response_format"]>,
  task: "transcribe" | "translate",
  seconds: string,
): Record<string, unknown> | string {
  if (format === "text" || format === "srt" || format === "vtt") {
    // A node may wrap text formats in JSON ({"text": "..."}); unwrap it.
    if (body.trimStart().startsWith("{")) {
      try {
        const text = (JSON.parse(body) as { text?: unknown }).text;
        if (typeof text === "string") return text;
      } catch {
        // plain text after all
      }
    }
    return body;
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw unreadable();
  }
  if (typeof parsed !== "object" || parsed === null || typeof parsed.text !== "string") throw unreadable();
  const { model: _model, ...rest } = parsed;
  if (format === "json") return rest;
  const segments = Array.isArray(rest.segments) ? rest.segments : [];
  // The node's other fields pass through; the ones the result always has are set after them, so
  // a node's `language: null` cannot take them away.
  return {
    task,
    ...rest,
    language: typeof rest.language === "string" ? rest.language : task === "translate" ? "english" : "unknown",
    duration: typeof rest.duration === "number" ? rest.duration : Number(seconds),
    segments: segments.map((s, id) => ({ id, ...SEGMENT_DEFAULTS, ...(s as object) })),
  };
}
