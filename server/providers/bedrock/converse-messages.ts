// An OpenAI conversation as Converse's: system and developer messages become `system` (in
// order), an assistant's reasoning (the signed `thinking_blocks` an earlier answer gave), text and
// tool calls its blocks, tool results a user turn's toolResult blocks. Converse wants user and
// assistant turns to alternate: consecutive turns of one role are merged.
import type { Json } from "../adapter";
import { toolInput } from "../anthropic/messages";
import { contentBlocks, withCachePoint } from "./converse-content";
import type { ConverseContentBlock, ConverseMessage, ConverseRequest } from "./types";

type ChatMessage = Json & { role?: unknown; content?: unknown; cache_control?: unknown };
type ToolCall = { id?: string; function?: { name?: string; arguments?: string } };

/** Reasoning carried back: only signed blocks (and redacted ones), as Bedrock checks the signature. */
function reasoningBlocks(message: ChatMessage): ConverseContentBlock[] {
  const blocks = Array.isArray(message.thinking_blocks) ? (message.thinking_blocks as Json[]) : [];
  return blocks.flatMap((b): ConverseContentBlock[] => {
    if (b.type === "thinking" && typeof b.thinking === "string" && typeof b.signature === "string") return [{ reasoningContent: { reasoningText: { text: b.thinking, signature: b.signature } } }];
    if (b.type === "redacted_thinking" && typeof b.data === "string") return [{ reasoningContent: { redactedContent: b.data } }];
    return [];
  });
}

function assistantBlocks(message: ChatMessage): ConverseContentBlock[] {
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as ToolCall[]) : [];
  const uses = calls.map((call): ConverseContentBlock => ({ toolUse: { toolUseId: call.id ?? "", name: call.function?.name ?? "", input: toolInput(call.function?.arguments) } }));
  return withCachePoint([...reasoningBlocks(message), ...contentBlocks(message.content), ...uses], message.cache_control);
}

function toolResult(message: ChatMessage): ConverseContentBlock[] {
  const content = contentBlocks(message.content).filter((b) => !("cachePoint" in b)) as { text: string }[];
  const block: ConverseContentBlock = { toolResult: { toolUseId: String(message.tool_call_id ?? ""), content: content.length ? content : [{ text: "" }] } };
  return withCachePoint([block], message.cache_control);
}

export function conversationOf(messages: ChatMessage[]): Pick<ConverseRequest, "system" | "messages"> {
  const system: NonNullable<ConverseRequest["system"]> = [];
  const turns: ConverseMessage[] = [];
  const add = (role: "user" | "assistant", blocks: ConverseContentBlock[]) => {
    if (!blocks.length) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case "system":
      case "developer":
        system.push(...(withCachePoint(contentBlocks(m.content), m.cache_control) as NonNullable<ConverseRequest["system"]>));
        break;
      case "assistant":
        add("assistant", assistantBlocks(m));
        break;
      case "tool":
        add("user", toolResult(m));
        break;
      default:
        add("user", withCachePoint(contentBlocks(m.content), m.cache_control));
    }
  }
  return { ...(system.length && { system }), messages: turns };
}
