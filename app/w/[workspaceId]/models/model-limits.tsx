// What a model takes and gives per request, in the unit its type is limited in: tokens for chat
// and embeddings, characters for speech, an audio file for transcription, images, video seconds.
// A limit the catalog does not state is not shown (no "1 tokens" for a model that has none).
import type { ModelDetail } from "@/server/routing/catalog/model-card";

const count = (n: number) => n.toLocaleString("en-US");

/** The model's limits as short lines: what it is priced per comes first. */
export function limitsOf(m: ModelDetail): string[] {
  const stated = (n: number) => n > 1;
  switch (m.type) {
    case "chat":
      return [`priced per 1M tokens`, ...(stated(m.context_length) ? [`${count(m.context_length)} tokens of context`] : []), ...(stated(m.max_output_tokens) ? [`up to ${count(m.max_output_tokens)} output tokens`] : [])];
    case "embedding":
      return [`priced per 1M input tokens`, ...(stated(m.context_length) ? [`up to ${count(m.context_length)} input tokens`] : [])];
    case "speech":
      return [`priced per 1M characters of input`, ...(stated(m.context_length) ? [`up to ${count(m.context_length)} characters`] : [])];
    case "transcription":
      return [`priced per second of audio`];
    case "image":
      return [`priced per image`];
    case "moderation":
      return [`priced per 1M input tokens`, ...(stated(m.context_length) ? [`up to ${count(m.context_length)} input tokens`] : [])];
    case "video":
      return [`priced per video second`, ...(m.video ? [`${m.video.seconds.min}–${m.video.seconds.max} seconds per video`] : [])];
  }
}

export function ModelLimits({ model }: { model: ModelDetail }) {
  const [unit, ...rest] = limitsOf(model);
  return (
    <div className="whitespace-normal">
      <div>{unit}</div>
      {rest.map((line) => (
        <div key={line} className="text-xs text-slate-500">
          {line}
        </div>
      ))}
    </div>
  );
}
