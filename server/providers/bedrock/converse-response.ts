// A Converse answer as OpenAI's chat.completion: text as the content, reasoning as
// `reasoning_content` and, with its signature, as `thinking_blocks` (Anthropic's shape, so a later
// turn sends it back, converse-messages.ts), tool uses as tool calls (the JSON tool's input as the
// content), the stop reason as the finish reason, the usage in OpenAI's terms.
import { randomUUID } from "node:crypto";
import type { Json } from "../adapter";
import { JSON_TOOL } from "../anthropic/json-mode";
import { nowSeconds } from "../anthropic/response";
import type { ConverseResponse } from "./types";
import { finishReasonOf, usageOf } from "./usage";

export const completionId = () => `chatcmpl-${randomUUID()}`;

/** `model` is the node's name for it (the request's), which the gateway replaces with its own id. */
export function completionOf(res: ConverseResponse, model: string): Json {
  let text = "";
  let reasoning = "";
  const thinking: Json[] = [];
  const calls: Json[] = [];
  let jsonAnswer = false;
  for (const block of res.output?.message?.content ?? []) {
    if ("text" in block) text += block.text;
    else if ("reasoningContent" in block) {
      const r = block.reasoningContent;
      if ("reasoningText" in r) {
        reasoning += r.reasoningText.text;
        thinking.push({ type: "thinking", thinking: r.reasoningText.text, signature: r.reasoningText.signature ?? "" });
      } else thinking.push({ type: "redacted_thinking", data: r.redactedContent });
    } else if ("toolUse" in block && block.toolUse.name === JSON_TOOL) {
      text += JSON.stringify(block.toolUse.input ?? {});
      jsonAnswer = true;
    } else if ("toolUse" in block) {
      calls.push({ id: block.toolUse.toolUseId, type: "function", function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) } });
    }
  }
  const finish = finishReasonOf(res.stopReason);
  return {
    id: completionId(),
    object: "chat.completion",
    created: nowSeconds(),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text || (calls.length ? null : ""),
          refusal: null,
          ...(thinking.length && { reasoning_content: reasoning, thinking_blocks: thinking }),
          ...(calls.length && { tool_calls: calls }),
        },
        logprobs: null,
        finish_reason: jsonAnswer && !calls.length && finish === "tool_calls" ? "stop" : finish,
      },
    ],
    usage: usageOf(res.usage),
  };
}
