// Simulator triggers: markers in a prompt that make the chat model misbehave on purpose, so the
// gateway's error paths can be tested. Documented in docs/LOCAL-NODE.md.
import { contentText, type ChatRequest } from "./chat-request";

export type Triggers = { fail: boolean; failMidStream: boolean; slow: boolean; rateLimited: boolean };

/** Extra wait before the first byte under [sim:slow]. */
export const SLOW_MS = 2000;

export function findTriggers(req: ChatRequest): Triggers {
  const text = req.messages.map((m) => contentText(m.content)).join("\n");
  return {
    fail: text.includes("[sim:fail]"),
    failMidStream: text.includes("[sim:fail-mid-stream]"),
    slow: text.includes("[sim:slow]"),
    rateLimited: text.includes("[sim:429]"),
  };
}
