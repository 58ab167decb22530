// An Anthropic Message as OpenAI's chat.completion: text blocks as the content, thinking as
// `reasoning_content` (and the blocks themselves, signatures included, as `thinking_blocks`, so a
// later turn can send them back), tool_use blocks as tool calls, the stop reason as the finish
// reason and the usage in OpenAI's terms.
import type { Message } from "@anthropic-ai/sdk/resources/messages";
import type { Json } from "../adapter";
import { JSON_TOOL } from "./json-mode";
import { chatUsage, finishReasonOf } from "./usage";

export const completionId = (messageId: string) => `chatcmpl-${messageId}`;
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** `model` is the node's name for it (the request's), which the gateway replaces with its own id. */
export function completionOf(message: Message, model: string): Json {
  let text = "";
  let reasoning = "";
  const thinking: Json[] = [];
  const calls: Json[] = [];
  let jsonAnswer = false;
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "thinking") {
      reasoning += block.thinking;
      thinking.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
    } else if (block.type === "redacted_thinking") thinking.push({ type: "redacted_thinking", data: block.data });
    else if (block.type === "tool_use" && block.name === JSON_TOOL) {
      // JSON mode's answer (json-mode.ts): the tool's input is the content.
      text += JSON.stringify(block.input ?? {});
      jsonAnswer = true;
    } else if (block.type === "tool_use") {
      calls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const finish = finishReasonOf(message.stop_reason);
  return {
    id: completionId(message.id),
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
    usage: chatUsage(message.usage),
  };
}
