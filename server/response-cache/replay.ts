// A hit's answer: the stored JSON object, or the stored events replayed with the framing of a live
// stream (chat chunks ending with [DONE]; the responses API's and Anthropic's named events).
import { EventStream } from "../kernel/event-stream";
import type { CachedAnswer } from "./entries";

async function* replayed(events: readonly string[]): AsyncGenerator<string> {
  for (const e of events) yield e;
}

export function replayAnswer(answer: CachedAnswer): unknown {
  if (answer.kind === "json") return answer.body;
  // Chat completions' streams are plain iterables of payloads (the transport adds [DONE]).
  if (!answer.named && answer.done) return replayed(answer.events);
  return new EventStream(replayed(answer.events), { named: answer.named, done: answer.done });
}
